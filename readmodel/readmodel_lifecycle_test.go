package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
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
			f := newFixture(t, dsn, "c1", "kube-abcde", map[string]string{"kube_tag": "v1.33.4"},
				[2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			f.st.NodeGroups[1].NodeCount = 2
			store, db, st, c := f.store, f.db, f.st, f.st.Cluster
			write := func(op string) { f.write(op) }
			get := f.view
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
					ControlPlane: status.Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}},
					NodeGroups:   map[string]status.Replicas{"default-worker": {Exists: true, Desired: workers, Current: workers, Ready: workers, UpToDate: workers, SpecVersion: "v1.33.4", MachineVersions: []string{"v1.33.4"}}}}
			}
			tree := func() string {
				sn, _ := store.SnapshotHead()
				h, _ := sn.Hash(st.Dir)
				return h.String()
			}

			write(status.OpCreate)
			want(status.CreateInProgress)
			db.Applied(ctx, c.UUID, tree(), 0, nil)
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
			db.Applied(ctx, c.UUID, tree(), 0, nil)
			db.SetObservation(ctx, c.UUID, settled(3))
			want(status.UpdateComplete)

			if err := db.Rebuild(ctx, store); err != nil {
				t.Fatal(err)
			}
			if s := get().Result.Status; s != status.UpdateComplete && s != status.CreateComplete {
				t.Fatalf("after rebuild: %s", s)
			}

			f.remove()
			f.sync()
			want(status.DeleteInProgress)
			db.Gone(ctx, c.UUID)
			if v := get(); v != nil {
				t.Fatalf("a deleted cluster is still in the read model: %s", v.Result.Status)
			}
		})
	}
}
