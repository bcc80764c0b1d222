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

// When a cluster's folder leaves Git through a commit from outside the API,
// the reconciler can tear it down (and report it gone) before the read
// model projects that commit. The projection then removes the cluster
// instead of leaving it DELETE_COMPLETE for ever; and a cluster put back in
// Git before the projection catches up is not removed.
func TestClusterGoneBeforeItsRemovalIsProjected(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name     string
				readd    bool // the folder is back in Git at the projected HEAD
				wantGone bool
			}{
				{name: "removed", wantGone: true},
				{name: "removed then restored", readd: true, wantGone: false},
			} {
				t.Run(tc.name, func(t *testing.T) {
					ctx := context.Background()
					store, _ := gitstore.Open(t.TempDir())
					db, err := readmodel.Open(ctx, dsn)
					if err != nil {
						t.Fatal(err)
					}
					defer db.Close()
					tmpl := intent.ClusterTemplate{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindClusterTemplate},
						ID: 1, UUID: "11111111-1111-4111-8111-111111111113", Name: "k8s", ProjectID: "p", COE: "kubernetes", ImageID: "img",
						ServerType: "vm", Labels: map[string]string{"kube_tag": "v1.33.4"}}
					c := intent.Cluster{TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindCluster},
						ID: 1, UUID: "22222222-2222-4222-8222-222222222224", Name: "c3", ProjectID: "p", ClusterTemplateID: tmpl.UUID,
						Labels: tmpl.Labels, StackID: "kube-gone1", ClusterClass: "magnum-v0.1.0", CreatedAt: time.Now().UTC()}
					st := &repo.ClusterState{Dir: intent.ClusterDirOf(&c), Cluster: c, NodeGroups: []intent.NodeGroup{{
						TypeMeta: intent.TypeMeta{APIVersion: intent.APIVersion, Kind: intent.KindNodeGroup},
						ID:       1, UUID: "55555555-5555-4555-8555-555555555551", Name: "default-master", ClusterID: c.UUID,
						ProjectID: "p", Role: "master", IsDefault: true, NodeCount: 1}}}
					write := func() {
						commit(t, store, status.OpCreate, func(sn *gitstore.Snapshot) []gitstore.Change {
							tp, _ := repo.Document(intent.TemplatePath("p", tmpl.UUID), tmpl)
							ch, err := repo.WriteCluster(sn, &tmpl, st, compiler.Facts{})
							if err != nil {
								t.Fatal(err)
							}
							return append(ch, tp)
						})
					}
					write()
					if err := db.Sync(ctx, store); err != nil {
						t.Fatal(err)
					}

					commit(t, store, status.OpDelete, func(*gitstore.Snapshot) []gitstore.Change {
						return []gitstore.Change{{Path: st.Dir, Delete: true}}
					})
					// The reconciler, ahead of the projection, tears it down.
					db.Gone(ctx, c.UUID)
					if v, err := db.GetClusterByUUID(ctx, c.UUID); err != nil || v == nil {
						t.Fatalf("the cluster left the read model before its removal was projected: %v, %v", v, err)
					}
					if tc.readd {
						write()
					}
					if err := db.Sync(ctx, store); err != nil {
						t.Fatal(err)
					}
					v, err := db.GetClusterByUUID(ctx, c.UUID)
					if err != nil {
						t.Fatal(err)
					}
					switch {
					case tc.wantGone && v != nil:
						t.Fatalf("the deleted cluster is still in the read model: %s", v.Result.Status)
					case !tc.wantGone && v == nil:
						t.Fatal("the restored cluster left the read model")
					case !tc.wantGone && v.Result.Status == status.DeleteComplete:
						t.Fatalf("the restored cluster is %s", v.Result.Status)
					}
				})
			}
		})
	}
}
