package gitstore

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
)

// A data folder whose history diverged from the remote's refuses to start,
// with an error saying how to resolve it, and changes neither side.
func TestOpenRemoteRefusesDivergedHistory(t *testing.T) {
	ctx := context.Background()
	remote := newRemote(t)
	openWithRemote(t, remote)
	before := pushFromClone(t, remote, map[string]string{"counter": "7"})
	dir := filepath.Join(t.TempDir(), "repo.git")
	s, err := Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	local, err := s.Update(ctx, increment("never pushed"))
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenRemote(ctx, dir, &Remote{URL: remote})
	if !errors.Is(err, ErrDiverged) {
		t.Fatalf("err = %v, want ErrDiverged", err)
	}
	if !strings.Contains(err.Error(), "move "+dir+" aside") {
		t.Fatalf("the error does not say how to resolve it: %v", err)
	}
	if remoteMain(t, remote) != before {
		t.Fatal("the remote changed")
	}
	s, _ = Open(dir)
	if mustHead(t, s) != local {
		t.Fatal("the local branch changed")
	}
}
