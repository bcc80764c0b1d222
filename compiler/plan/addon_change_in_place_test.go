package plan

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
)

// A new cloud_provider_tag is no longer a no-op: the OCCM DaemonSet the
// cloud-provider ClusterResourceSet delivers changes in place, and no
// machine rolls.
func TestCloudProviderTagChangesAddonInPlace(t *testing.T) {
	in := input(t)
	base := revisionWithAddons(t, in)
	in.Cluster.Labels["cloud_provider_tag"] = "v1.34.1"
	p, err := Compute(context.Background(), base, revisionWithAddons(t, in))
	if err != nil {
		t.Fatal(err)
	}
	check(t, p, map[string]Effect{})
	if p.Effect != InPlace || len(p.Addons) != 1 || p.Addons[0].Object != "addon DaemonSet kube-system/openstack-cloud-controller-manager" {
		t.Fatalf("plan:\n%s", p)
	}
	if f := strings.Join(p.Addons[0].Fields, "\n"); !strings.Contains(f, "spec.template.spec.containers[0].image") || !strings.Contains(f, ":v1.34.1") {
		t.Fatalf("fields:\n%s", f)
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
