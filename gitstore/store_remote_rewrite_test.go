package gitstore

import (
	"context"
	"path/filepath"
	"strings"
	"testing"
)

// When the remote's history is rewritten (a force-push back to an older
// commit), Sync follows the remote, even though the local branch is ahead.
func TestSyncFollowsRewrittenRemote(t *testing.T) {
	remote := newRemote(t)
	s := openWithRemote(t, remote)
	first, err := s.Update(context.Background(), increment("one"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(context.Background(), increment("two")); err != nil {
		t.Fatal(err)
	}
	work := filepath.Join(t.TempDir(), "clone")
	runGit(t, ".", "clone", "-q", remote, work)
	runGit(t, work, "reset", "-q", "--hard", first.String())
	runGit(t, work, "push", "-q", "--force", "origin", "HEAD:"+Branch)
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := mustHead(t, s); got != first {
		t.Fatalf("local main = %s, want the rewritten remote's %s", got, first)
	}
	// The next write builds on the rewritten history.
	h, err := s.Update(context.Background(), increment("three"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readCounter(t, s); got != "2" {
		t.Fatalf("counter = %s, want 2", got)
	}
	if parent := strings.TrimSpace(runGit(t, remote, "rev-parse", h.String()+"^")); parent != first.String() {
		t.Fatalf("parent = %s, want %s", parent, first)
	}
}
