package schemas

import (
	"slices"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

func TestImmutableChanges(t *testing.T) {
	c := Default()
	old := map[string]string{"octavia_provider": "ovn", "master_lb_floating_ip_enabled": "True", "boot_volume_size": "20", "kube_tag": "v1.31.4"}
	for _, tc := range []struct {
		name    string
		new     map[string]string
		changed []string
	}{
		{"same", map[string]string{"octavia_provider": "ovn", "master_lb_floating_ip_enabled": "True", "boot_volume_size": "20", "kube_tag": "v1.31.4"}, nil},
		{"mutable labels change freely", map[string]string{"octavia_provider": "ovn", "master_lb_floating_ip_enabled": "yes", "boot_volume_size": "40", "kube_tag": "v1.32.4"}, nil},
		{"spelling of a bool is not a change", map[string]string{"octavia_provider": "ovn", "master_lb_floating_ip_enabled": "1"}, nil},
		{"explicit default equals absent", map[string]string{"octavia_provider": "ovn", "master_lb_floating_ip_enabled": "true", "dns_cluster_domain": "cluster.local"}, nil},
		{"provider", map[string]string{"octavia_provider": "amphora", "master_lb_floating_ip_enabled": "true"}, []string{"labels.octavia_provider"}},
		{"floating ip off", map[string]string{"octavia_provider": "ovn", "master_lb_floating_ip_enabled": "false"}, []string{"labels.master_lb_floating_ip_enabled"}},
		{"removed means back to default", map[string]string{}, []string{"labels.octavia_provider"}},
		{"networks", map[string]string{"octavia_provider": "ovn", "calico_ipv4pool": "10.200.0.0/16", "service_cluster_ip_range": "10.96.0.0/12",
			"fixed_subnet_cidr": "10.1.0.0/24", "api_server_lb_flavor": "big", "api_server_lb_availability_zone": "az2", "dns_cluster_domain": "k8s.local"},
			[]string{"labels.api_server_lb_availability_zone", "labels.api_server_lb_flavor", "labels.calico_ipv4pool", "labels.dns_cluster_domain", "labels.fixed_subnet_cidr", "labels.service_cluster_ip_range"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := fields(c.ImmutableChanges(ScopeCluster, old, tc.new))
			if !slices.Equal(got, tc.changed) {
				t.Errorf("changed %v, want %v", got, tc.changed)
			}
		})
	}
	// Nodegroups carry the cluster's labels: the same rules apply there.
	if got := c.ImmutableChanges(ScopeNodeGroup, old, map[string]string{"octavia_provider": "amphora"}); len(got) == 0 {
		t.Error("nodegroup scope: change not reported")
	}
	// Templates are copied at cluster create: changing them changes no cluster.
	if got := c.ImmutableChanges(ScopeTemplate, old, map[string]string{"octavia_provider": "amphora"}); got != nil {
		t.Errorf("template scope: %v", got)
	}
	v := c.ImmutableChanges(ScopeCluster, old, map[string]string{"octavia_provider": "amphora"})[0]
	if v.Value != "amphora" || !strings.Contains(v.Message, `was "ovn"`) {
		t.Errorf("violation does not say old and new value: %+v", v)
	}
}

func TestImmutableDocumentChanges(t *testing.T) {
	c := Default()
	old := []byte("kind: Cluster\nname: prod\nuuid: u1\nstack_id: kube-aaaaa\nfixed_network: net1\nflavor_id: m1\ncluster_template_id: t1\nlabels:\n  octavia_provider: ovn\n")
	new := []byte("kind: Cluster\nname: prod\nuuid: u1\nstack_id: kube-aaaaa\nfixed_network: net2\nflavor_id: m2\ncluster_template_id: t2\nlabels:\n  octavia_provider: amphora\n")
	vs, err := c.ImmutableDocumentChanges(intent.KindCluster, old, new)
	if err != nil {
		t.Fatal(err)
	}
	if got := fields(vs); !slices.Equal(got, []string{"fixed_network", "labels.octavia_provider"}) {
		t.Errorf("changed %v", got)
	}
	for _, f := range []string{"fixed_network", "fixed_subnet", "uuid", "stack_id", "name", "project_id"} {
		if !slices.Contains(c.ImmutableFields(intent.KindCluster), f) {
			t.Errorf("cluster field %s must be @keel(immutable)", f)
		}
	}
	if slices.Contains(c.ImmutableFields(intent.KindCluster), "cluster_template_id") {
		t.Error("cluster_template_id changes on upgrade")
	}
	if !slices.Contains(c.ImmutableFields(intent.KindNodeGroup), "role") {
		t.Error("nodegroup role must be immutable")
	}
	if _, err := c.ImmutableDocumentChanges(intent.KindCluster, []byte("a: [b"), new); err == nil {
		t.Error("bad YAML accepted")
	}
}
