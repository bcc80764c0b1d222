package readmodel_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openkeel/keel/gitstore"
)

// Two replicas, each with its own clone of one Git server, share a read
// model. Replica A commits and projects a cluster; replica B, whose clone
// has not fetched that commit yet, projects next: the read model must not
// step back to B's older HEAD (the cluster would vanish from the API until
// B's next fetch). B asks the server instead and lands on A's commit.
func TestLaggingReplicaDoesNotStepTheReadModelBack(t *testing.T) {
	ctx := context.Background()
	server := filepath.Join(t.TempDir(), "server.git")
	if _, err := gitstore.Open(server); err != nil {
		t.Fatal(err)
	}
	clone := func() *gitstore.Store {
		s, err := gitstore.OpenRemote(ctx, t.TempDir(), &gitstore.Remote{URL: server})
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	a, b := clone(), clone()

	f := newFixture(t, filepath.Join(t.TempDir(), "keel.db"), "prod", "prod-abc", map[string]string{"kube_tag": "v1.33.4"}, [2]string{"default-master", "master"})
	f.store = a
	f.write("create")
	if f.view() == nil {
		t.Fatal("replica A's cluster is not in the read model")
	}

	if err := f.db.Sync(ctx, b); err != nil {
		t.Fatal(err)
	}
	if f.view() == nil {
		t.Fatal("replica B, lagging, projected its older HEAD: the cluster left the read model")
	}
	ha, _ := a.Head()
	if hb, _ := b.Head(); hb != ha {
		t.Errorf("replica B's main is %s after projecting, want the server's %s", hb, ha)
	}
}
