package gitstore

import (
	"context"
	"path/filepath"
	"testing"
)

// A tracked snapshot's reads stay valid on a later snapshot exactly when
// none of the paths read (files, folders listed, paths found absent)
// changed in between: what API writers prepare before the repository's
// lock is reused under it only then.
func TestTrackedReadsAreSameUnlessAReadPathChanged(t *testing.T) {
	for _, tc := range []struct {
		path string
		same bool
	}{
		{"projects/p2/templates/t.yaml", true},               // read nowhere
		{"projects/p1/clusters/c2/cluster.yaml", true},       // a sibling folder
		{"projects/p1/clusters/c1/cluster.yaml", true},       // rewritten as it was
		{"projects/p1/clusters/c1/nodegroups/n.yaml", false}, // in a folder listed
		{"projects/p1/clusters/new/cluster.yaml", false},     // was absent
		{"site.cue", false},                                  // a file read
	} {
		s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
		if err != nil {
			t.Fatal(err)
		}
		commit := func(p, data string) *Snapshot {
			t.Helper()
			if _, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
				return &Commit{Subject: p, Author: Signature{Name: "a", Email: "a@x"}, Changes: []Change{{Path: p, Data: []byte(data)}}}, nil
			}); err != nil {
				t.Fatal(err)
			}
			sn, err := s.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			return sn
		}
		commit("site.cue", "a")
		sn := commit("projects/p1/clusters/c1/cluster.yaml", "x")
		read := sn.Tracked()
		_, _ = read.ReadFile("site.cue")
		_ = read.Exists("projects/p1/clusters/new/cluster.yaml")
		_, _ = read.List("projects/p1/clusters/c1")
		if !read.ReadsSame(sn) {
			t.Fatal("not the same as its own snapshot")
		}
		data := "changed"
		if tc.path == "projects/p1/clusters/c1/cluster.yaml" {
			data = "x"
		}
		if got := read.ReadsSame(commit(tc.path, data)); got != tc.same {
			t.Errorf("after writing %s: ReadsSame = %v, want %v", tc.path, got, tc.same)
		}
		if sn.ReadsSame(sn) {
			t.Error("an untracked snapshot claims its reads are the same")
		}
	}
}
