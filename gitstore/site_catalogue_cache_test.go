package gitstore_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/schemas"
)

// schemas.SiteCatalogue reads a snapshot's site.cue once per version of the file:
// concurrent and repeated reads share one compiled catalogue, a changed
// file gives a new one, a broken file is a *schemas.SiteError and no file is the
// embedded schema.
func TestSiteCatalogueIsCachedByFileVersion(t *testing.T) {
	st, err := gitstore.Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	commit := func(files map[string]string) *gitstore.Snapshot {
		t.Helper()
		_, err := st.Update(context.Background(), func(*gitstore.Snapshot) (*gitstore.Commit, error) {
			c := &gitstore.Commit{Subject: "test", Author: gitstore.Signature{Name: "t", Email: "t@t"}}
			for p, d := range files {
				c.Changes = append(c.Changes, gitstore.Change{Path: p, Data: []byte(d)})
			}
			return c, nil
		})
		if err != nil {
			t.Fatal(err)
		}
		sn, err := st.SnapshotHead()
		if err != nil {
			t.Fatal(err)
		}
		return sn
	}

	sn := commit(map[string]string{"README": "no site file\n"})
	if cat, err := schemas.SiteCatalogue(sn); err != nil || cat != schemas.Default() {
		t.Fatalf("without site.cue: %p %v, want the embedded schema", cat, err)
	}

	sn = commit(map[string]string{schemas.SiteFile: `site: defaults: boot_volume_size: "50"` + "\n"})
	cats := make([]*schemas.Catalogue, 8)
	var wg sync.WaitGroup
	for i := range cats {
		wg.Go(func() {
			cat, err := schemas.SiteCatalogue(sn)
			if err != nil {
				t.Error(err)
			}
			cats[i] = cat
		})
	}
	wg.Wait()
	for _, c := range cats[1:] {
		if c != cats[0] {
			t.Fatal("concurrent reads of one site.cue compiled it more than once")
		}
	}
	if l, _ := cats[0].Lookup(schemas.LabelBootVolumeSize); l.Default != "50" {
		t.Errorf("boot_volume_size default %q, want the site's 50", l.Default)
	}
	// The same content read from elsewhere (a checkout) hits the same entry.
	if cat, err := schemas.SiteCatalogueSource([]byte(`site: defaults: boot_volume_size: "50"` + "\n")); err != nil || cat != cats[0] {
		t.Errorf("schemas.SiteCatalogueSource of the same content: %p %v, want the cached %p", cat, err, cats[0])
	}

	sn = commit(map[string]string{schemas.SiteFile: `site: defaults: boot_volume_size: "60"` + "\n"})
	cat, err := schemas.SiteCatalogue(sn)
	if err != nil {
		t.Fatal(err)
	}
	if l, _ := cat.Lookup(schemas.LabelBootVolumeSize); l.Default != "60" {
		t.Errorf("after a change of site.cue: default %q, want 60", l.Default)
	}

	sn = commit(map[string]string{schemas.SiteFile: "site: strict: maybe\n"})
	_, err = schemas.SiteCatalogue(sn)
	var se *schemas.SiteError
	if !errors.As(err, &se) {
		t.Fatalf("broken site.cue: %v, want a *schemas.SiteError", err)
	}
	if _, again := schemas.SiteCatalogue(sn); again != err {
		t.Errorf("broken site.cue compiled again: %v", again)
	}
}
