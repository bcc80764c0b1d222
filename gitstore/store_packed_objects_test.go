package gitstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// gitstore reads and checks loose objects itself (objects.go); after a
// `git gc` the objects are packed, and reads, listings and new commits
// must still work (through go-git), with the repository fsck-clean.
func TestPackedObjectsAreReadAndWrittenOver(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo.git")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(s *Store, changes ...Change) {
		t.Helper()
		if _, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
			return &Commit{Subject: "test", Author: Signature{Name: "t", Email: "t@x"}, Changes: changes}, nil
		}); err != nil {
			t.Fatal(err)
		}
	}
	commit(s, Change{Path: "projects/p1/clusters/a/cluster.yaml", Data: []byte("name: a\n")},
		Change{Path: "projects/p1/clusters/b/cluster.yaml", Data: []byte("name: b\n")})
	runGit(t, dir, "gc", "-q", "--prune=now")
	if out := runGit(t, dir, "count-objects", "-v"); !strings.Contains(out, "count: 0\n") {
		t.Fatalf("objects left loose after git gc:\n%s", out)
	}

	s, err = Open(dir) // no cached trees
	if err != nil {
		t.Fatal(err)
	}
	sn, err := s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sn.ReadFile("projects/p1/clusters/a/cluster.yaml"); err != nil || string(got) != "name: a\n" {
		t.Fatalf("packed file = %q, %v", got, err)
	}
	if es, err := sn.List("projects/p1/clusters"); err != nil || len(es) != 2 {
		t.Fatalf("packed folder lists %v, %v", es, err)
	}
	// A blob that is only packed, written again, and a new one.
	commit(s, Change{Path: "projects/p1/clusters/c/cluster.yaml", Data: []byte("name: a\n")},
		Change{Path: "projects/p1/clusters/d/cluster.yaml", Data: []byte("name: d\n")})
	sn, err = s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	for p, want := range map[string]string{"a": "name: a\n", "b": "name: b\n", "c": "name: a\n", "d": "name: d\n"} {
		if got, err := sn.ReadFile("projects/p1/clusters/" + p + "/cluster.yaml"); err != nil || string(got) != want {
			t.Errorf("%s = %q, %v; want %q", p, got, err, want)
		}
	}
	if out := runGit(t, dir, "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatalf("git fsck: %s", out)
	}
}
