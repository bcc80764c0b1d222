package gitstore

import (
	"context"
	"path/filepath"
	"testing"
)

// Start-up with a remote: an existing data folder's commits are pushed to
// an empty remote, and to a remote they fast-forward; a fresh data folder
// takes the remote's history as is (no commit of its own).
func TestOpenRemotePushesLocalOrAdoptsRemote(t *testing.T) {
	ctx := context.Background()
	dir := filepath.Join(t.TempDir(), "repo.git")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := s.Update(ctx, increment("before the remote")); err != nil {
		t.Fatal(err)
	}
	remote := newRemote(t)
	s, err = OpenRemote(ctx, dir, &Remote{URL: remote})
	if err != nil {
		t.Fatal(err)
	}
	if remoteMain(t, remote) != mustHead(t, s).String() {
		t.Fatal("the existing history was not pushed to the empty remote")
	}

	// Local ahead of the remote (remote is an ancestor): fast-forwarded.
	s, _ = Open(dir)
	ahead, err := s.Update(ctx, increment("while the remote was off"))
	if err != nil {
		t.Fatal(err)
	}
	if _, err := OpenRemote(ctx, dir, &Remote{URL: remote}); err != nil {
		t.Fatal(err)
	}
	if remoteMain(t, remote) != ahead.String() {
		t.Fatal("local commits were not fast-forwarded to the remote")
	}

	fresh := openWithRemote(t, remote)
	if mustHead(t, fresh) != ahead {
		t.Fatalf("a fresh data folder's main = %s, want the remote's %s", mustHead(t, fresh), ahead)
	}
}
