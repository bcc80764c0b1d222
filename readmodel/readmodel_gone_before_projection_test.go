package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
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
					f := newFixture(t, dsn, "c3", "kube-gone1", map[string]string{"kube_tag": "v1.33.4"}, [2]string{"default-master", "master"})
					c, db := f.st.Cluster, f.db
					f.write(status.OpCreate)
					f.remove()
					// The reconciler, ahead of the projection, tears it down.
					db.Gone(ctx, c.UUID)
					if v, err := db.GetClusterByUUID(ctx, c.UUID); err != nil || v == nil {
						t.Fatalf("the cluster left the read model before its removal was projected: %v, %v", v, err)
					}
					if tc.readd {
						f.write(status.OpCreate) // projects HEAD, where it is back
					}
					f.sync()
					v := f.view()
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
