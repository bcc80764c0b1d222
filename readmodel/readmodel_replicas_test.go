package readmodel_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/repo"
)

// Two replicas, each with its own mirror of one Git server, share one read
// model. When replica A has written and projected a commit that B has not
// fetched yet, B's projection (its poller runs every second) must neither
// roll the read model back to B's older HEAD nor wait for B's next fetch
// interval: B fetches the commit, so B's repository (and so B's
// reconciler, should B lead) has it too.
func TestReplicaBehindTheProjectedRevisionFetchesInsteadOfRollingBack(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			server := filepath.Join(t.TempDir(), "server.git")
			if _, err := gitstore.Open(server); err != nil {
				t.Fatal(err)
			}
			replica := func() (*gitstore.Store, *readmodel.DB) {
				s, err := gitstore.OpenRemote(ctx, filepath.Join(t.TempDir(), "repo.git"), &gitstore.Remote{URL: server})
				if err != nil {
					t.Fatal(err)
				}
				db, err := readmodel.Open(ctx, dsn)
				if err != nil {
					t.Fatal(err)
				}
				t.Cleanup(func() { db.Close() })
				if err := db.Sync(ctx, s); err != nil {
					t.Fatal(err)
				}
				return s, db
			}
			storeA, dbA := replica()
			storeB, dbB := replica()

			tmpl := intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
				ID: 1, UUID: "11111111-1111-4111-8111-111111111111", Name: "from-a", ProjectID: "p", COE: "kubernetes", ImageID: "img", ServerType: "vm"}
			commit(t, storeA, "create", func(*gitstore.Snapshot) []gitstore.Change {
				ch, _ := repo.Document(intent.TemplatePath("p", tmpl.UUID), tmpl)
				return []gitstore.Change{ch}
			})
			if err := dbA.Sync(ctx, storeA); err != nil {
				t.Fatal(err)
			}
			headA, _ := storeA.Head()
			if headB, _ := storeB.Head(); headB == headA {
				t.Fatal("test set-up: B already has A's commit")
			}

			if err := dbB.Sync(ctx, storeB); err != nil {
				t.Fatal(err)
			}
			if got, err := dbB.GetTemplateByUUID(ctx, tmpl.UUID); err != nil || got == nil {
				t.Fatalf("after B's projection A's template is %v (%v): the read model was rolled back to B's older HEAD", got, err)
			}
			if headB, _ := storeB.Head(); headB != headA {
				t.Fatalf("B's main is %s, want A's %s: B did not fetch the projected revision", headB, headA)
			}
		})
	}
}
