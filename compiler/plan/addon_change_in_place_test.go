package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
)

// A new addon tag is no longer a no-op: the workloads a ClusterResourceSet
// delivers change in place (cloud_provider_tag: the OCCM DaemonSet of the
// cloud-provider set; cilium_tag: Cilium's agent and operator in the
// <uuid> set), and no machine rolls.
func TestAddonLabelChangesInPlace(t *testing.T) {
	for _, c := range []struct {
		driver, label, value string
		objects              []string
		field                string
	}{
		{"calico", "cloud_provider_tag", "v1.34.1",
			[]string{"addon DaemonSet kube-system/openstack-cloud-controller-manager"},
			"spec.template.spec.containers[0].image"},
		{"cilium", "cilium_tag", "v1.15.19",
			[]string{"addon DaemonSet kube-system/cilium", "addon Deployment kube-system/cilium-operator"},
			"spec.template.spec.containers[0].image"},
	} {
		t.Run(c.label, func(t *testing.T) {
			in := input(t)
			in.Template.NetworkDriver = &c.driver
			base := revisionWithAddons(t, in)
			in.Cluster.Labels[c.label] = c.value
			p, err := Compute(context.Background(), base, revisionWithAddons(t, in))
			if err != nil {
				t.Fatal(err)
			}
			check(t, p, map[string]Effect{})
			if p.Effect != InPlace || len(p.Addons) != len(c.objects) {
				t.Fatalf("plan:\n%s", p)
			}
			for i, a := range p.Addons {
				f := strings.Join(a.Fields, "\n")
				if a.Object != c.objects[i] || !strings.Contains(f, c.field) || !strings.Contains(f, ":"+c.value) {
					t.Errorf("change %d: %s, fields:\n%s\nwant %s, %s to :%s", i, a.Object, f, c.objects[i], c.field, c.value)
				}
			}
		})
	}
}

func revisionWithAddons(t *testing.T, in compiler.Input) Revision {
	t.Helper()
	r := revision(t, in)
	docs, err := compiler.Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	var data [][]byte
	for _, d := range docs {
		data = append(data, d.Data)
	}
	if r.Addons, err = AddonObjects(data); err != nil {
		t.Fatal(err)
	}
	if len(r.Addons) == 0 {
		t.Fatal("no addon objects")
	}
	return r
}
