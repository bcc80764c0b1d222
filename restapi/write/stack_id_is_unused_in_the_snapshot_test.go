package write

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// A stack id is in use when a cluster folder of any project carries it,
// on the snapshot asked about (not on one seen before: the cache is by
// the clusters folder's tree), and a new one is never one in use.
func TestStackIDIsUnusedInTheSnapshot(t *testing.T) {
	store, err := gitstore.Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	commit := func(project, stackID string) *gitstore.Snapshot {
		t.Helper()
		p := intent.ClusterDir(project, "c-"+stackID, stackID) + "/cluster.yaml"
		_, err := store.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
			return &gitstore.Commit{Subject: "add " + stackID, Author: gitstore.Signature{Name: "t", Email: "t@keel"},
				Changes: []gitstore.Change{{Path: p, Data: []byte("name: c\n")}}}, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sn, err := store.SnapshotHead()
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}
	ids := NewStackIDs()
	first := commit("p1", "kube-aaaaa")
	for _, tc := range []struct {
		sn   *gitstore.Snapshot
		id   string
		used bool
	}{
		{first, "kube-aaaaa", true},
		{first, "kube-bbbbb", false},
		{commit("p2", "kube-bbbbb"), "kube-bbbbb", true}, // another project, a later snapshot
		{first, "kube-bbbbb", false},                     // the earlier snapshot still has none
	} {
		used, err := ids.InUse(tc.sn, tc.id)
		if err != nil || used != tc.used {
			t.Errorf("InUse(%s) = %v, %v; want %v", tc.id, used, err, tc.used)
		}
	}
	for i := 0; i < 50; i++ {
		id, err := ids.New(first)
		if err != nil || !intent.ValidStackID(id) || id == "kube-aaaaa" {
			t.Fatalf("New = %q, %v", id, err)
		}
	}
}
