package gitstore

import (
	"context"
	"strings"
	"testing"
)

// A commit pushed to the remote by someone else makes keel's push a
// non-fast-forward: Update fetches it and recomputes its change on top, so
// neither side is lost and keel never force-pushes.
func TestUpdateRecomputesOnRemoteCommit(t *testing.T) {
	remote := newRemote(t)
	s := openWithRemote(t, remote)
	if _, err := s.Update(context.Background(), increment("one")); err != nil {
		t.Fatal(err)
	}
	theirs := pushFromClone(t, remote, map[string]string{"counter": "10", "other.txt": "from outside\n"})

	h, err := s.Update(context.Background(), increment("keel's change"))
	if err != nil {
		t.Fatal(err)
	}
	if got := readCounter(t, s); got != "11" {
		t.Fatalf("counter = %s, want 11 (recomputed on the remote's 10)", got)
	}
	sn, _ := s.SnapshotHead()
	if !sn.Exists("other.txt") {
		t.Fatal("the remote's commit was lost")
	}
	if got := remoteMain(t, remote); got != h.String() {
		t.Fatalf("remote main = %s, want keel's commit %s", got, h)
	}
	parent := strings.TrimSpace(runGit(t, remote, "rev-parse", h.String()+"^"))
	if parent != theirs {
		t.Fatalf("keel's commit has parent %s, want the pushed commit %s", parent, theirs)
	}
}
