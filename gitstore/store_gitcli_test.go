package gitstore

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runGit(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=op", "GIT_AUTHOR_EMAIL=op@example.org", "GIT_COMMITTER_NAME=op", "GIT_COMMITTER_EMAIL=op@example.org")
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}

// What keel commits is an ordinary repository: the git CLI clones it, reads
// the files, trailers and author, and can push a revert back, which keel then
// sees as its new HEAD.
func TestRepositoryIsReadableAndWritableByGitCLI(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
		return &Commit{
			Subject:  "cluster prod-a: create",
			Author:   Signature{Name: "alice", Email: "alice@example.org"},
			Trailers: []Trailer{{"Keel-Operation", "create"}, {"Keel-Project", "p1"}},
			Changes:  []Change{{Path: "projects/p1/clusters/prod-a/cluster.yaml", Data: []byte("name: prod-a\n")}},
		}, nil
	})
	if err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "work")
	runGit(t, ".", "clone", "-q", s.Dir(), work)
	if b, err := os.ReadFile(filepath.Join(work, "projects/p1/clusters/prod-a/cluster.yaml")); err != nil || string(b) != "name: prod-a\n" {
		t.Fatalf("clone content = %q, %v", b, err)
	}
	log := runGit(t, work, "log", "-1", "--format=%an <%ae>%n%(trailers:key=Keel-Operation,valueonly)")
	if !strings.Contains(log, "alice <alice@example.org>") || !strings.Contains(log, "create") {
		t.Fatalf("git log = %q", log)
	}
	if out := runGit(t, work, "fsck", "--strict"); strings.Contains(out, "error") {
		t.Fatalf("git fsck: %s", out)
	}
	runGit(t, work, "revert", "--no-edit", "HEAD")
	runGit(t, work, "push", "-q", "origin", "HEAD:"+Branch)
	sn, err := s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	if sn.Exists("projects/p1/clusters/prod-a") {
		t.Fatal("after the pushed revert the cluster folder is still in HEAD")
	}
}
