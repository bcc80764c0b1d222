package readmodel_test

import (
	"context"
	"fmt"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
)

// Two replicas share one read model, each with its own mirror of one Git
// server. Replica A creates clusters one after another, each pushed then
// projected, while replica B projects in a loop, as its poller does. B's
// projection finds A's newest commit missing and fetches; when A projects
// a newer commit while B fetches, B must fetch again rather than take the
// revision it lacks for a rewritten history: a full projection of B's older
// HEAD would drop A's newest clusters from the API and then notify their
// creates a second time, under new message_ids.
func TestReplicaFetchingWhileAnotherProjectsNotifiesEachChangeOnce(t *testing.T) {
	const clusters = 30
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			server := filepath.Join(t.TempDir(), "server.git")
			if _, err := gitstore.Open(server); err != nil {
				t.Fatal(err)
			}
			mirror := func() *gitstore.Store {
				s, err := gitstore.OpenRemote(ctx, filepath.Join(t.TempDir(), "repo.git"), &gitstore.Remote{URL: server})
				if err != nil {
					t.Fatal(err)
				}
				return s
			}
			f := newFixture(t, dsn, "race", "race-abcde", map[string]string{"kube_tag": "v1.33.4"}, [2]string{"default-master", "master"})
			f.store = mirror()
			commit(t, f.store, "init", func(*gitstore.Snapshot) []gitstore.Change {
				return []gitstore.Change{{Path: "README.md", Data: []byte("clusters\n")}}
			})
			f.sync() // the first projection is a full one, which notifies nothing
			storeB := mirror()
			dbB, err := readmodel.Open(ctx, dsn)
			if err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { dbB.Close() })

			done := make(chan struct{})
			var wg sync.WaitGroup
			wg.Add(1)
			var errB error
			go func() {
				defer wg.Done()
				for {
					select {
					case <-done:
						return
					default:
					}
					if err := dbB.Sync(ctx, storeB); err != nil && errB == nil {
						errB = err
					}
				}
			}()
			for i := 0; i < clusters; i++ {
				renameFixtureCluster(f, i)
				f.write("create")
			}
			close(done)
			wg.Wait()
			if errB != nil {
				t.Fatalf("replica B's projection failed: %v", errB)
			}
			creates := map[string]int{}
			for _, line := range f.outboxLines(func(n readmodel.Notification) string {
				return fmt.Sprintf("%s %s %s", n.Event.EventType(), n.Event.Outcome, n.Event.ClusterName)
			}) {
				creates[line]++
			}
			for i := 0; i < clusters; i++ {
				line := fmt.Sprintf("magnum.cluster.create pending race-%02d", i)
				if creates[line] != 1 {
					t.Errorf("%q is in the outbox %d times, want once", line, creates[line])
				}
			}
			if len(creates) != clusters {
				t.Errorf("the outbox holds %d distinct notifications, want the %d creates: %v", len(creates), clusters, creates)
			}
		})
	}
}

// renameFixtureCluster makes f's cluster (and its nodegroups) the i-th of
// a series: its own name, uuid and folder.
func renameFixtureCluster(f *fixture, i int) {
	c := &f.st.Cluster
	c.Name = fmt.Sprintf("race-%02d", i)
	c.ID = int64(i + 1)
	c.UUID = fmt.Sprintf("22222222-2222-4222-8222-%012d", i)
	f.st.Dir = intent.ClusterDirOf(c)
	for j := range f.st.NodeGroups {
		ng := &f.st.NodeGroups[j]
		ng.ClusterID = c.UUID
		ng.UUID = fmt.Sprintf("33333333-3333-4333-8%03d-%012d", j, i)
	}
}
