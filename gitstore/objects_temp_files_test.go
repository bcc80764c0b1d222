package gitstore

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// Loose objects are written as objects/tmp_obj_* and renamed into their
// fan-out folder: none is left behind, a folder `git gc` removed is made
// again, and a temporary file a crash left behind is one git tolerates
// (fsck passes) and removes (prune).
func TestLooseObjectTemporaryFiles(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	objects := filepath.Join(s.Dir(), "objects")
	data := []byte("a blob whose fan-out folder is gone\n")
	h := plumbing.ComputeHash(plumbing.BlobObject, data)
	if err := os.RemoveAll(filepath.Join(objects, h.String()[:2])); err != nil {
		t.Fatal(err)
	}
	if _, err := s.writeObject(plumbing.BlobObject, data); err != nil {
		t.Fatalf("writing into a removed fan-out folder: %v", err)
	}
	if out := runGit(t, s.Dir(), "cat-file", "-p", h.String()); out != string(data) {
		t.Fatalf("git cat-file: %q", out)
	}
	if _, err := s.writeObject(plumbing.BlobObject, syntheticManifests(200<<10)); err != nil {
		t.Fatal(err)
	}
	left, err := filepath.Glob(filepath.Join(objects, "tmp_*"))
	if err != nil || len(left) != 0 {
		t.Fatalf("temporary files left: %v %v", left, err)
	}

	stray := filepath.Join(objects, "tmp_obj_123456")
	if err := os.WriteFile(stray, []byte("half an object"), 0o600); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-30 * 24 * time.Hour)
	if err := os.Chtimes(stray, old, old); err != nil {
		t.Fatal(err)
	}
	if out := runGit(t, s.Dir(), "fsck", "--full", "--strict"); strings.Contains(out, "tmp_obj") {
		t.Fatalf("git fsck noticed the temporary file: %s", out)
	}
	runGit(t, s.Dir(), "prune")
	if _, err := os.Stat(stray); !os.IsNotExist(err) {
		t.Fatalf("git prune left the temporary file: %v", err)
	}
}
