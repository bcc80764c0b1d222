package gitstore

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"
)

// The branch is never written in place: a keel killed while moving it
// leaves the old value or the new, and the lock file Git's protocol uses.
// A lock left by a dead process is taken over, a live one waited for, and a
// ref file emptied by an older keel's interrupted update stops Open instead
// of starting a new history on the branch.
func TestBranchUpdateInterrupted(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "repo.git")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	commit := func(s *Store, name string) {
		t.Helper()
		if _, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
			return &Commit{Subject: name, Author: Signature{Name: "t", Email: "t@t"}, Changes: []Change{{Path: name, Data: []byte(name)}}}, nil
		}); err != nil {
			t.Fatalf("commit %s: %v", name, err)
		}
	}
	commit(s, "one")
	lock := s.refPath() + ".lock"

	// A lock left behind by a killed process (old) is taken over.
	if err := os.WriteFile(lock, []byte("garbage\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	old := time.Now().Add(-time.Minute)
	if err := os.Chtimes(lock, old, old); err != nil {
		t.Fatal(err)
	}
	commit(s, "two")

	// A live holder (a `git push` being received) is waited for.
	if err := os.WriteFile(lock, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	go func() { time.Sleep(200 * time.Millisecond); os.Remove(lock) }()
	commit(s, "three")
	if _, err := os.Stat(lock); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("lock left after an update: %v", err)
	}
	if out := runGit(t, dir, "rev-list", "--count", Branch); out != "4\n" { // the initial commit and three
		t.Fatalf("git rev-list --count: %q, want 4", out)
	}
	head, err := s.Head()
	if err != nil {
		t.Fatal(err)
	}

	// An emptied ref file (what go-git's in-place write left at a kill)
	// is refused, naming the fix; the history is not replaced.
	if err := os.WriteFile(s.refPath(), nil, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := Open(dir); !errors.Is(err, errEmptyRef) {
		t.Fatalf("Open with an empty ref file: %v, want errEmptyRef", err)
	}
	if b, _ := os.ReadFile(s.refPath()); len(b) != 0 {
		t.Fatalf("Open wrote the ref: %q", b)
	}
	if err := os.Remove(s.refPath()); err != nil { // the repair the error names
		t.Fatal(err)
	}
	runGit(t, dir, "update-ref", "refs/heads/"+Branch, head.String())
	again, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if h, err := again.Head(); err != nil || h != head {
		t.Fatalf("after repair: head %s %v, want %s", h, err, head)
	}
}
