package gitstore

import (
	"context"
	"testing"
)

// With a remote, the initial commit and every Update are on the remote's
// main (pushed by keel) by the time Update returns.
func TestUpdatePushesToRemote(t *testing.T) {
	remote := newRemote(t)
	s := openWithRemote(t, remote)
	if got, want := remoteMain(t, remote), mustHead(t, s).String(); got != want {
		t.Fatalf("after open the remote's main is %q, want the initial commit %s", got, want)
	}
	h, err := s.Update(context.Background(), increment("one"))
	if err != nil {
		t.Fatal(err)
	}
	if got := remoteMain(t, remote); got != h.String() {
		t.Fatalf("remote main = %s, want the new commit %s", got, h)
	}
	if mustHead(t, s) != h {
		t.Fatalf("local main = %s, want %s", mustHead(t, s), h)
	}
	// git fsck on the remote: what keel pushed is a complete history.
	runGit(t, remote, "fsck", "--strict")
}
