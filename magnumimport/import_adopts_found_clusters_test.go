package magnumimport_test

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// foundOn is a management cluster's answer for the standard cloud's
// Cluster API cluster (prod-a, kube-ab12c: 1 master, 2 default workers,
// kube_tag v1.32.4). It is what cmd/keel's finder reads from a real API
// server (import_adopt_finds_magnum_cluster_api_clusters_test.go there).
type foundOn map[string]*magnumimport.Found

func (f foundOn) Find(_ context.Context, stackID, uuid string) (*magnumimport.Found, error) {
	return f[stackID+"/"+uuid], nil
}

type notAdoptable struct{}

func (notAdoptable) Find(context.Context, string, string) (*magnumimport.Found, error) {
	return nil, magnumimport.NotAdoptable{Why: "its Cluster kube-ab12c has no topology"}
}

func prodA(workers int64, version string) foundOn {
	return foundOn{"kube-ab12c/" + mdb.ClusterCAPI: {
		Class: "magnum-v0.26.2", Version: version, ControlPlane: 1, Workers: map[string]int64{"default-worker": workers},
		Topology: map[string]any{"classRef": map[string]any{"name": "magnum-v0.26.2"}, "version": version},
	}}
}

// keel import --adopt takes over a Cluster API driver's cluster it finds on
// the management cluster, as it runs (its ClusterClass and topology), and
// --plan says "no machine change"; a cluster whose adoption would change
// what runs stays a read-only record saying what, unless --adopt-changes;
// a cluster not found, or found but not made from a ClusterClass, stays a
// read-only record saying so. Heat clusters
// are never looked up.
func TestImportAdoptsFoundClusters(t *testing.T) {
	m := mdb.All(t)[0]
	mdb.FillStandard(t, m)
	for _, tc := range []struct {
		name    string
		found   magnumimport.Finder
		changes bool
		adopted bool
		line    string
	}{
		{"found as Magnum has it", prodA(2, "v1.32.4"), false, true,
			"adopted from magnum-cluster-api on ClusterClass magnum-v0.26.2, no machine change"},
		{"found with another count", prodA(3, "v1.32.4"), false, false,
			"adopting it would change what runs (nodegroup default-worker: 3 machines run, Magnum's node_count is 2); keel import --adopt-changes adopts it anyway"},
		{"another version, changes taken", prodA(2, "v1.31.1"), true, true,
			"changes what runs: kube_tag v1.32.4, but Kubernetes v1.31.1 runs"},
		{"found without a topology", notAdoptable{}, false, false,
			"keel cannot adopt it: its Cluster kube-ab12c has no topology"},
		{"not found", foundOn{}, false, false,
			"keel found no Cluster kube-ab12c labelled cluster-uuid=" + mdb.ClusterCAPI + " on the management cluster to adopt"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := read(t, m)
			if err := got.Adopt(context.Background(), tc.found, magnumimport.AdoptOptions{Changes: tc.changes}); err != nil {
				t.Fatal(err)
			}
			var c *intent.Cluster
			for i := range got.Clusters {
				switch d := &got.Clusters[i].Doc; {
				case d.UUID == mdb.ClusterCAPI:
					c = d
				case d.Adopted != nil:
					t.Errorf("cluster %s (%s) adopted", d.UUID, d.Name)
				}
			}
			if (c.Adopted != nil) != tc.adopted || c.ReadOnly() == tc.adopted {
				t.Fatalf("adopted %v, read-only %v; want adopted %v", c.Adopted != nil, c.ReadOnly(), tc.adopted)
			}
			if tc.adopted && (c.ClusterClass != "magnum-v0.26.2" || c.Adopted.Status != "CREATE_COMPLETE") {
				t.Errorf("class %q, Magnum status %q: want the found class and Magnum's status", c.ClusterClass, c.Adopted.Status)
			}
			p, err := magnumimport.PlanOn(newRepo(t), got)
			if err != nil {
				t.Fatal(err)
			}
			var out strings.Builder
			if err := p.Print(&out); err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(out.String(), tc.line) {
				t.Errorf("plan lacks %q:\n%s", tc.line, out.String())
			}
		})
	}
}
