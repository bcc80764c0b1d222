package gitstore

import (
	"context"
	"testing"
	"time"
)

// Sync brings a commit that reached the remote from outside into the local
// branch and tells subscribers (the reconciler) about it.
func TestSyncFollowsRemoteAndNotifies(t *testing.T) {
	remote := newRemote(t)
	s := openWithRemote(t, remote)
	ch := s.Subscribe()
	theirs := pushFromClone(t, remote, map[string]string{"counter": "5"})
	if mustHead(t, s).String() == theirs {
		t.Fatal("local main moved before Sync")
	}
	if err := s.Sync(context.Background()); err != nil {
		t.Fatal(err)
	}
	if got := mustHead(t, s).String(); got != theirs {
		t.Fatalf("local main = %s, want the remote's %s", got, theirs)
	}
	select {
	case h := <-ch:
		if h.String() != theirs {
			t.Fatalf("notified %s, want %s", h, theirs)
		}
	case <-time.After(5 * time.Second):
		t.Fatal("Sync did not notify subscribers")
	}
	if got := readCounter(t, s); got != "5" {
		t.Fatalf("counter = %s, want 5", got)
	}
}
