package readmodel_test

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/internal/gitstore"
	"github.com/openkeel/keel/internal/intent"
	"github.com/openkeel/keel/internal/readmodel"
	"github.com/openkeel/keel/internal/readmodel/rmtest"
	"github.com/openkeel/keel/internal/repo"
	"github.com/openkeel/keel/internal/status"
)

func commit(t *testing.T, s *gitstore.Store, op string, fn func(sn *gitstore.Snapshot) []gitstore.Change) {
	t.Helper()
	_, err := s.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		return &gitstore.Commit{Subject: op, Author: gitstore.Signature{Name: "t", Email: "t@x"},
			Trailers: []gitstore.Trailer{{Key: "Keel-Operation", Value: op}}, Changes: fn(sn)}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
}

// A cluster's status follows its life through Git and the management
// cluster, identically on SQLite and PostgreSQL: CREATE_IN_PROGRESS until the
// committed revision is applied and Cluster API reports it settled, then
// CREATE_COMPLETE (latched), UPDATE_IN_PROGRESS after a change,
// DELETE_IN_PROGRESS once its folder leaves Git, and gone when the
// reconciler reports its objects deleted. A rebuild keeps the status.
func TestClusterStatusLifecycle(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			store, err := gitstore.Open(t.TempDir())
			if err != nil {
				t.Fatal(err)
			}
			db, err := readmodel.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()

			tmpl := intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
				ID: 1, UUID: "11111111-1111-4111-8111-111111111111", Name: "k8s", ProjectID: "p", COE: "kubernetes", ImageID: "img",
				ServerType: "vm", Labels: map[string]string{"kube_tag": "v1.33.4"}}
			c := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
				ID: 1, UUID: "22222222-2222-4222-8222-222222222222", Name: "c1", ProjectID: "p", ClusterTemplateID: tmpl.UUID,
				Labels: tmpl.Labels, CreateTimeout: 60, StackID: "kube-abcde", ClusterClass: "magnum-v0.1.0", CreatedAt: time.Now().UTC()}
			ng := func(id int64, n, role string, count int64) intent.NodeGroup {
				return intent.NodeGroup{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
					ID: id, UUID: "33333333-3333-4333-8333-33333333333" + string(rune('0'+id)), Name: n, ClusterID: c.UUID,
					ProjectID: "p", Role: role, IsDefault: true, NodeCount: count}
			}
			st := &repo.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c,
				NodeGroups: []intent.NodeGroup{ng(1, "default-master", "master", 1), ng(2, "default-worker", "worker", 2)}}
			write := func(op string) {
				commit(t, store, op, func(sn *gitstore.Snapshot) []gitstore.Change {
					tp, _ := repo.Document(intent.TemplatePath("p", tmpl.UUID), tmpl)
					ch, err := repo.WriteCluster(sn, &tmpl, st, compiler.Facts{})
					if err != nil {
						t.Fatal(err)
					}
					return append(ch, tp)
				})
				if err := db.Sync(ctx, store); err != nil {
					t.Fatal(err)
				}
			}
			get := func() *readmodel.ClusterView {
				t.Helper()
				v, err := db.GetClusterByUUID(ctx, c.UUID)
				if err != nil {
					t.Fatal(err)
				}
				return v
			}
			want := func(s string) {
				t.Helper()
				v := get()
				if v == nil {
					t.Fatalf("cluster gone, want %s", s)
				}
				if v.Result.Status != s {
					t.Fatalf("status %s (%s), want %s", v.Result.Status, v.Result.StatusReason, s)
				}
			}
			settled := func(workers int64) *status.Observation {
				return &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
					ControlPlane: status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1},
					NodeGroups:   map[string]status.Replicas{"default-worker": {Exists: true, Desired: workers, Current: workers, Ready: workers, UpToDate: workers}}}
			}
			tree := func() string {
				sn, _ := store.SnapshotHead()
				h, _ := sn.Hash(st.Dir)
				return h.String()
			}

			write(status.OpCreate)
			want(status.CreateInProgress)
			db.Applied(ctx, c.UUID, tree(), nil)
			want(status.CreateInProgress) // applied, not yet provisioned
			db.SetObservation(ctx, c.UUID, settled(2))
			want(status.CreateComplete)
			db.SetObservation(ctx, c.UUID, &status.Observation{Exists: true}) // a later outage
			want(status.CreateComplete)                                       // latched: health changes, status does not

			// The auto-healer's health PATCH changes no Cluster API object.
			st.Cluster.HealthStatus = intent.Ptr("UNHEALTHY")
			st.Cluster.HealthStatusReason = map[string]string{"api": "nok"}
			write("update")
			want(status.CreateComplete)

			st.NodeGroups[1].NodeCount = 3
			write("resize")
			want(status.UpdateInProgress)
			db.Applied(ctx, c.UUID, tree(), nil)
			db.SetObservation(ctx, c.UUID, settled(3))
			want(status.UpdateComplete)

			if err := db.Rebuild(ctx, store); err != nil {
				t.Fatal(err)
			}
			if s := get().Result.Status; s != status.UpdateComplete && s != status.CreateComplete {
				t.Fatalf("after rebuild: %s", s)
			}

			commit(t, store, status.OpDelete, func(*gitstore.Snapshot) []gitstore.Change {
				return []gitstore.Change{{Path: st.Dir, Delete: true}}
			})
			if err := db.Sync(ctx, store); err != nil {
				t.Fatal(err)
			}
			want(status.DeleteInProgress)
			db.Gone(ctx, c.UUID)
			if v := get(); v != nil {
				t.Fatalf("a deleted cluster is still in the read model: %s", v.Result.Status)
			}
		})
	}
}
