package gitstore

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// Blobs written ahead of a commit (WriteBlobs, outside the repository's
// lock) are the ones the commit names: not written twice, and read by the
// git CLI as any object (fsck in the bare repository itself).
func TestBlobsWrittenAheadAreTheCommitsBlobs(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	payload := bytes.Repeat([]byte("apiVersion: v1\nkind: ConfigMap\n"), 20000)
	changes := []Change{{Path: "projects/p1/clusters/a/rendered/configmap.yaml", Data: payload}}
	if err := s.WriteBlobs(changes); err != nil {
		t.Fatal(err)
	}
	h := plumbing.ComputeHash(plumbing.BlobObject, payload).String()
	obj := filepath.Join(s.Dir(), "objects", h[:2], h[2:])
	before, err := os.Stat(obj)
	if err != nil {
		t.Fatalf("the blob was not written ahead: %v", err)
	}
	if _, err := s.Update(context.Background(), func(*Snapshot) (*Commit, error) {
		return &Commit{Subject: "a", Author: Signature{Name: "a", Email: "a@x"}, Changes: changes}, nil
	}); err != nil {
		t.Fatal(err)
	}
	after, err := os.Stat(obj)
	if err != nil || !after.ModTime().Equal(before.ModTime()) {
		t.Fatalf("the blob was rewritten: %v %v", after, err)
	}
	sn, err := s.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	if got, err := sn.ReadFile(changes[0].Path); err != nil || !bytes.Equal(got, payload) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
	if out := runGit(t, s.Dir(), "cat-file", "-p", "HEAD:projects/p1/clusters/a/rendered/configmap.yaml"); out != string(payload) {
		t.Fatalf("git cat-file gave %d bytes", len(out))
	}
	if out := runGit(t, s.Dir(), "fsck", "--strict", "--no-dangling"); strings.Contains(out, "error") {
		t.Fatalf("git fsck: %s", out)
	}
}
