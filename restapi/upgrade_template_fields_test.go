package restapi

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
)

// An upgrade to a template whose API server port or network driver differs
// from the cluster's is a 400 that names the field, and commits nothing: a
// running cluster cannot move its endpoint or its CNI. The same template
// with only a newer kube_tag upgrades.
func TestUpgradeRefusesTemplateFieldsARunningClusterKeeps(t *testing.T) {
	a := newTestAPI(t)
	tmpl := func(name, driver string, port *int) string {
		t.Helper()
		ct, err := clustertemplates.Create(context.Background(), a.client(member, ""), clustertemplates.CreateOpts{
			Name: name, COE: "kubernetes", ImageID: "ubuntu-2204-kube", FlavorID: "m1.medium",
			MasterFlavorID: "m1.large", ExternalNetworkID: "public", NetworkDriver: driver, APIServerPort: port,
			Labels: map[string]string{"kube_tag": map[bool]string{true: "v1.33.4", false: "v1.33.5"}[name == "old"]},
		}).Extract()
		if err != nil {
			t.Fatalf("creating template %s: %v", name, err)
		}
		return ct.UUID
	}
	p7443, p6443 := 7443, 6443
	old := tmpl("old", "calico", nil)
	otherPort := tmpl("other-port", "calico", &p7443)
	otherCNI := tmpl("other-cni", "cilium", nil)
	explicitDefault := tmpl("explicit-default", "calico", &p6443)

	id := a.cluster(member, "c1", old, 1)
	a.complete(id)
	for _, tc := range []struct{ template, want string }{
		{otherPort, "apiserver_port is 7443, the cluster's is 6443"},
		{otherCNI, "network_driver is cilium, the cluster's is calico"},
	} {
		a.expectNoCommit(func() {
			expectError(t, a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": tc.template}), 400, tc.want)
		})
	}
	// 6443 written out is the default the cluster already has.
	if r := a.do(member, "1.10", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": explicitDefault}); r.status != 202 {
		t.Fatalf("upgrade to the same port written out: %d %s", r.status, r.body)
	}
	if got := a.loadState(id).Cluster.ClusterTemplateID; got != explicitDefault {
		t.Fatalf("cluster template after the upgrade: %s", got)
	}
}
