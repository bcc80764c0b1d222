package write

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/schemas"
)

// Two replicas share one read model, each with its own mirror of one Git
// server. Replica A adds a file; replica B, whose mirror has not fetched
// A's commit, is asked to remove it (a client read the read model, which
// shows A's commit). B's change must be computed on A's commit: computed
// on B's older HEAD it finds nothing to remove and commits nothing, and
// the API would answer a delete with 204 while the cluster stays.
func TestLaggingReplicaWritesOntoWhatTheReadModelShows(t *testing.T) {
	ctx := context.Background()
	server := filepath.Join(t.TempDir(), "server.git")
	if _, err := gitstore.Open(server); err != nil {
		t.Fatal(err)
	}
	db, err := readmodel.Open(ctx, filepath.Join(t.TempDir(), "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	replica := func() (*gitstore.Store, *Path) {
		st, err := gitstore.OpenRemote(ctx, filepath.Join(t.TempDir(), "repo.git"), &gitstore.Remote{URL: server})
		if err != nil {
			t.Fatal(err)
		}
		return st, New(Config{Store: st, DB: db,
			Site:  func() (*schemas.Catalogue, error) { return nil, nil },
			Check: func(*gitstore.Snapshot, []gitstore.Change) error { return nil }})
	}
	storeA, a := replica()
	storeB, b := replica()
	who := Caller{UserID: "u1", ProjectID: "p1", RequestID: "req-1"}
	change := func(p *Path, subject string, ch gitstore.Change, want bool) {
		t.Helper()
		err := p.Commit(ctx, who, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
			if sn.Exists(ch.Path) != want {
				return nil, nil // already done
			}
			return who.Commit(subject, "update", []gitstore.Change{ch}), nil
		})
		if err != nil {
			t.Fatal(err)
		}
	}
	change(a, "add", gitstore.Change{Path: "notes/x.txt", Data: []byte("x\n")}, false)
	headA, _ := storeA.Head()
	if storeB.Contains(headA) {
		t.Fatal("test set-up: B already has A's commit")
	}

	change(b, "remove", gitstore.Change{Path: "notes/x.txt", Delete: true}, true)
	headB, _ := storeB.Head()
	if headB == headA {
		t.Fatal("B committed nothing: it computed the removal on its older HEAD, which lacks the file")
	}
	sn, err := storeB.SnapshotAt(headB)
	if err != nil {
		t.Fatal(err)
	}
	if sn.Exists("notes/x.txt") {
		t.Error("the file is still on B's HEAD")
	}
	if rev, _ := db.ProjectedRevision(ctx); rev != headB.String() {
		t.Errorf("the read model shows %s, want B's commit %s", rev, headB)
	}
}
