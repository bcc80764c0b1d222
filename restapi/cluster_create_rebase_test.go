package restapi

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/schemas"
)

// createFirst creates another cluster of one node in member's project.
func createFirst(a *testAPI, tmpl string) error {
	one := 1
	_, err := clusters.Create(context.Background(), a.client(member, "1.10"), clusters.CreateOpts{
		Name: "first", ClusterTemplateID: tmpl, MasterCount: &one, NodeCount: &one,
	}).Extract()
	return err
}

// A create is prepared on HEAD as it was before the repository's lock and
// committed on HEAD as it is: what another writer committed in between is
// kept and taken into account (ids, stack ids and quota re-derived on the
// new HEAD; a changed site.cue makes the create render again with it).
func TestClusterCreateCommitsOnTheHeadItFinds(t *testing.T) {
	for _, tc := range []struct {
		name string
		// between runs after the create was prepared, before it commits,
		// in the request's goroutine (so it reports, never fails).
		between func(a *testAPI, tmpl string) error
		check   func(t *testing.T, a *testAPI, id string, status int)
	}{{
		name:    "another create landed",
		between: createFirst,
		check: func(t *testing.T, a *testAPI, id string, status int) {
			if status != http.StatusAccepted {
				t.Fatalf("status %d, want 202", status)
			}
			all, err := clusters.List(a.client(member, "1.10"), clusters.ListOpts{}).AllPages(context.Background())
			if err != nil {
				t.Fatal(err)
			}
			list, _ := clusters.ExtractClusters(all)
			if len(list) != 2 {
				t.Fatalf("%d clusters, want both", len(list))
			}
			first, second := a.loadState(list[0].UUID), a.loadState(id)
			if list[0].UUID == id {
				first = a.loadState(list[1].UUID)
			}
			if second.Cluster.ID != first.Cluster.ID+1 {
				t.Errorf("cluster ids %d then %d, want the later commit to take the next id", first.Cluster.ID, second.Cluster.ID)
			}
			if first.Cluster.StackID == second.Cluster.StackID {
				t.Errorf("both clusters have stack id %s", first.Cluster.StackID)
			}
			if second.NodeGroups[0].ID <= first.NodeGroups[len(first.NodeGroups)-1].ID {
				t.Errorf("nodegroup ids %d after %d, want new ones", second.NodeGroups[0].ID, first.NodeGroups[len(first.NodeGroups)-1].ID)
			}
		},
	}, {
		name:    "the quota was used up meanwhile",
		between: createFirst,
		check: func(t *testing.T, a *testAPI, id string, status int) {
			if status != http.StatusForbidden {
				t.Fatalf("status %d, want 403 (quota of 1 taken by the other create)", status)
			}
		},
	}, {
		name: "site.cue changed",
		between: func(a *testAPI, _ string) error {
			_, err := a.store.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
				return &gitstore.Commit{
					Subject: "site: default boot volumes of 50 GiB",
					Author:  gitstore.Signature{Name: "operator", Email: "ops@example.com"},
					Changes: []gitstore.Change{{Path: schemas.SiteFile, Data: []byte("package schemas\n\nsite: defaults: boot_volume_size: \"50\"\n")}},
				}, nil
			})
			return err
		},
		check: func(t *testing.T, a *testAPI, id string, status int) {
			if status != http.StatusAccepted {
				t.Fatalf("status %d, want 202", status)
			}
			sn, err := a.store.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			vars, _ := renderedTopology(t, sn, a.loadState(id).Dir)
			if bv, _ := vars["bootVolume"].(map[string]any); bv["size"] != float64(50) {
				t.Errorf("bootVolume = %v, want the new site default size 50", vars["bootVolume"])
			}
		},
	}} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t, func(c *Config) {
				if tc.name == "the quota was used up meanwhile" {
					c.MaxClustersPerProject = 1
				}
			})
			tmpl := a.template(member, "k8s", nil)
			var betweenErr error
			a.api.afterPrepare = func() {
				a.api.afterPrepare = nil // a nested create runs without it
				betweenErr = tc.between(a, tmpl.UUID)
			}
			before, err := a.store.Head()
			if err != nil {
				t.Fatal(err)
			}
			count := a.commitCount()
			masters, nodes := 1, 1
			res := clusters.Create(context.Background(), a.client(member, "1.10"), clusters.CreateOpts{
				Name: "second", ClusterTemplateID: tmpl.UUID, MasterCount: &masters, NodeCount: &nodes,
			})
			status := http.StatusAccepted
			id, err := res.Extract()
			if err != nil {
				var code gophercloud.ErrUnexpectedResponseCode
				if !errors.As(err, &code) {
					t.Fatalf("create: %v", err)
				}
				status = code.Actual
			}
			if betweenErr != nil {
				t.Fatalf("the other writer: %v", betweenErr)
			}
			tc.check(t, a, id, status)
			// One commit for the writer in between, and one for this
			// create unless it was refused.
			want := 2
			if status != http.StatusAccepted {
				want = 1
			}
			if n := a.commitCount() - count; n != want {
				t.Errorf("%d commits, want %d", n, want)
			}
			// The read model projects HEAD, and every cluster touched is
			// what compiling it on HEAD gives (keel compile --check).
			a.checkConsistent(t, tc.name, before)
		})
	}
}
