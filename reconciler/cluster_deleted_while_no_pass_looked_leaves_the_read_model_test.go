package reconciler

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/readmodel"
)

// A cluster created and deleted while no reconciler ran (keel down, or a
// leader handing over) has no inventory and shows in no diff of the next
// process's first pass; the read model kept its row for ever (listed by
// the API, DELETE_COMPLETE). The start-up pass's listing now lets it go,
// and keeps the cluster still in Git.
func TestClusterDeletedWhileNoPassLookedLeavesTheReadModel(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	db, err := readmodel.Open(ctx, filepath.Join(t.TempDir(), "readmodel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	doomed, kept := f.cluster("doomed", 1), f.cluster("kept", 1)
	f.write(doomed)
	f.write(kept)
	project(t, db, f.store)
	f.commit("delete cluster", gitstore.Change{Path: doomed.Dir, Delete: true})
	project(t, db, f.store)
	if clusterView(t, db, doomed.Cluster.UUID) == nil {
		t.Fatal("the deleted cluster left the read model before any pass")
	}

	rec, err := New(f.store, env.Client, db, f.rec.o)
	if err != nil {
		t.Fatal(err)
	}
	rec.SyncAll(ctx)
	if v := clusterView(t, db, doomed.Cluster.UUID); v != nil {
		t.Fatalf("after the start-up pass, the deleted cluster is still %s", v.Result.Status)
	}
	if clusterView(t, db, kept.Cluster.UUID) == nil {
		t.Fatal("the cluster still in Git left the read model")
	}
}

func project(t *testing.T, db *readmodel.DB, store *gitstore.Store) {
	t.Helper()
	if err := db.Sync(context.Background(), store); err != nil {
		t.Fatal(err)
	}
}

func clusterView(t *testing.T, db *readmodel.DB, uuid string) *readmodel.ClusterView {
	t.Helper()
	v, err := db.GetClusterByUUID(context.Background(), uuid)
	if err != nil {
		t.Fatal(err)
	}
	return v
}
