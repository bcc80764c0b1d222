package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// A repository whose branch holds a tree entry Git cannot check out (as an
// older keel wrote for a crafted project id: "../etc.yaml") is refused at
// start with the repair command; `keel repo repair` (Repair) commits the
// tree without it, after which keel starts and the repository clones.
func TestOpenRefusesUncheckoutableTree(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo.git")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
		return &Commit{Subject: "good", Changes: []Change{{Path: "quotas/p1.yaml", Data: []byte("x\n")}}}, nil
	}); err != nil {
		t.Fatal(err)
	}
	for _, bad := range []string{"..", ".git", ".GIT.", "."} {
		t.Run(bad, func(t *testing.T) {
			head := commitEntry(t, s, bad)
			_, err := Open(dir)
			var ue *UncheckoutableError
			if !errors.As(err, &ue) || !strings.Contains(err.Error(), "keel repo repair --repo "+dir) {
				t.Fatalf("Open: %v, want the repair command", err)
			}
			r, err := OpenForRepair(dir)
			if err != nil {
				t.Fatal(err)
			}
			fixed, err := r.Repair(context.Background())
			if err != nil || fixed == head {
				t.Fatalf("Repair: %s, %v", fixed, err)
			}
			if _, err := Open(dir); err != nil {
				t.Fatalf("Open after repair: %v", err)
			}
			work := expectClones(t, dir)
			if b, err := os.ReadFile(filepath.Join(work, "quotas/p1.yaml")); err != nil || string(b) != "x\n" {
				t.Fatalf("the valid file after repair: %q, %v", b, err)
			}
			if again, err := r.Repair(context.Background()); err != nil || again != fixed {
				t.Fatalf("second Repair: %s, %v; want nothing to do", again, err)
			}
		})
	}
}

// commitEntry moves the branch to a commit whose root tree also holds a
// folder named name, written below keel's path checks as another tool could.
func commitEntry(t *testing.T, s *Store, name string) plumbing.Hash {
	t.Helper()
	head, _ := s.Head()
	parent, err := s.Repo().CommitObject(head)
	if err != nil {
		t.Fatal(err)
	}
	root, err := s.tree(parent.TreeHash)
	if err != nil {
		t.Fatal(err)
	}
	blob, _ := s.writeBlob([]byte("root: x\n"))
	sub, err := s.storeObject(&gitobject.Tree{Entries: []gitobject.TreeEntry{{Name: "etc.yaml", Mode: filemode.Regular, Hash: blob}}})
	if err != nil {
		t.Fatal(err)
	}
	entries := append([]gitobject.TreeEntry{{Name: name, Mode: filemode.Dir, Hash: sub}}, root.Entries...)
	tree, err := s.storeObject(&gitobject.Tree{Entries: entries})
	if err != nil {
		t.Fatal(err)
	}
	c := (&Commit{Subject: "crafted"}).object(tree, parent.Author.When)
	c.ParentHashes = []plumbing.Hash{head}
	h, err := s.storeObject(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.casBranch(head, h); err != nil {
		t.Fatal(err)
	}
	return h
}
