package gitstore

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// newRemote creates an empty bare repository with the git CLI, as a Git
// server would hold it.
func newRemote(t *testing.T) string {
	t.Helper()
	dir := filepath.Join(t.TempDir(), "remote.git")
	runGit(t, ".", "init", "-q", "--bare", "-b", Branch, dir)
	return dir
}

// remoteMain is the remote's main according to the git CLI ("" if absent).
func remoteMain(t *testing.T, remote string) string {
	t.Helper()
	out := runGit(t, remote, "for-each-ref", "--format=%(objectname)", "refs/heads/"+Branch)
	return strings.TrimSpace(out)
}

func openWithRemote(t *testing.T, remote string) *Store {
	t.Helper()
	s, err := OpenRemote(context.Background(), filepath.Join(t.TempDir(), "repo.git"), &Remote{URL: remote})
	if err != nil {
		t.Fatal(err)
	}
	return s
}

// increment is an update that counts in the file "counter", so that a lost
// or stale recomputation shows in the result.
func increment(subject string) UpdateFunc {
	return func(sn *Snapshot) (*Commit, error) {
		n := 0
		if b, err := sn.ReadFile("counter"); err == nil {
			n, _ = strconv.Atoi(strings.TrimSpace(string(b)))
		}
		return &Commit{
			Subject: subject,
			Author:  Signature{Name: "t", Email: "t@example.org"},
			Changes: []Change{{Path: "counter", Data: []byte(strconv.Itoa(n + 1))}},
		}, nil
	}
}

func readCounter(t *testing.T, s *Store) string {
	t.Helper()
	sn, err := s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	b, err := sn.ReadFile("counter")
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func mustHead(t *testing.T, s *Store) plumbing.Hash {
	t.Helper()
	h, err := s.Head()
	if err != nil {
		t.Fatal(err)
	}
	return h
}

// pushFromClone commits files in a fresh clone of remote with the git CLI
// and pushes them to main, as a merged pull request does.
func pushFromClone(t *testing.T, remote string, files map[string]string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "clone")
	runGit(t, ".", "clone", "-q", remote, work)
	for name, data := range files {
		writeFile(t, filepath.Join(work, name), data)
		runGit(t, work, "add", name)
	}
	runGit(t, work, "commit", "-q", "-m", "from a pull request")
	runGit(t, work, "push", "-q", "origin", "HEAD:"+Branch)
	return strings.TrimSpace(runGit(t, work, "rev-parse", "HEAD"))
}

func writeFile(t *testing.T, path, data string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(data), 0o644); err != nil {
		t.Fatal(err)
	}
}
