package gitstore

import (
	"context"
	"errors"
	"os"
	"testing"
)

// A remote that cannot be reached fails the write with ErrRemoteUnavailable
// and leaves the local branch where it was: nothing is acknowledged that is
// not on the remote. Sync reports the same error.
func TestUpdateFailsWhenRemoteUnavailable(t *testing.T) {
	remote := newRemote(t)
	s := openWithRemote(t, remote)
	before := mustHead(t, s)
	moved := remote + ".gone"
	if err := os.Rename(remote, moved); err != nil {
		t.Fatal(err)
	}
	_, err := s.Update(context.Background(), increment("unreachable"))
	if !errors.Is(err, ErrRemoteUnavailable) {
		t.Fatalf("Update: err = %v, want ErrRemoteUnavailable", err)
	}
	if after := mustHead(t, s); after != before {
		t.Fatalf("local main moved to %s without the remote", after)
	}
	if err := s.Sync(context.Background()); !errors.Is(err, ErrRemoteUnavailable) {
		t.Fatalf("Sync: err = %v, want ErrRemoteUnavailable", err)
	}
	// Back again, writes work.
	if err := os.Rename(moved, remote); err != nil {
		t.Fatal(err)
	}
	h, err := s.Update(context.Background(), increment("reachable"))
	if err != nil {
		t.Fatal(err)
	}
	if remoteMain(t, remote) != h.String() {
		t.Fatal("the remote did not get the commit once reachable")
	}
}
