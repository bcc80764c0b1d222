package readmodel_test

import (
	"context"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A cluster whose removal was projected leaves the read model when a
// complete listing whose commit reached that removal has neither its folder
// nor objects of it: nothing else would report it gone. Otherwise it
// stays, waiting for the reconciler's Gone.
func TestDeletedClusterAbsentFromAListingIsGone(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			for _, tc := range []struct {
				name                    string
				removed                 bool // the folder's removal is projected
				folderListed, objListed bool
				listedBeforeRemoval     bool // the listing's commit precedes the removal
				wantGone                bool
			}{
				{name: "removed, in neither list", removed: true, wantGone: true},
				{name: "removed, folder listed", removed: true, folderListed: true},
				{name: "removed, objects listed", removed: true, objListed: true},
				{name: "removed after the listed commit", removed: true, listedBeforeRemoval: true},
				{name: "still in Git, in neither list"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					f := newFixture(t, dsn, "c5", "kube-absent1", map[string]string{"kube_tag": "v1.33.4"}, [2]string{"default-master", "master"})
					f.write(status.OpCreate)
					at, err := f.store.Head()
					if err != nil {
						t.Fatal(err)
					}
					if tc.removed {
						f.remove()
						f.sync()
					}
					if !tc.listedBeforeRemoval {
						if at, err = f.store.Head(); err != nil {
							t.Fatal(err)
						}
					}
					folders := map[string]bool{f.st.Dir: tc.folderListed}
					applied := map[string]bool{f.st.Cluster.UUID: tc.objListed}
					reached := func(c string) bool { return f.store.Reaches(at, plumbing.NewHash(c)) }
					f.db.Present(context.Background(), folders, applied, reached)
					if gone := f.view() == nil; gone != tc.wantGone {
						t.Fatalf("left the read model: %v, want %v", gone, tc.wantGone)
					}
				})
			}
		})
	}
}
