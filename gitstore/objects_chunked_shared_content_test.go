package gitstore

import (
	"bytes"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// Two large blobs of different sizes sharing their first chunks (every
// cluster's addon payload but its last lines): the second compresses only
// what it does not share, and both read back as written.
func TestChunkedObjectsShareCompressedChunks(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	shared := syntheticManifests(3 * chunkSize)
	a := append(bytes.Clone(shared), "kind: ConfigMap\nmetadata:\n  name: a\n"...)
	b := append(bytes.Clone(shared), "kind: ConfigMap\nmetadata:\n  name: a-much-longer-name\n"...)
	ha, err := s.writeObject(plumbing.BlobObject, a)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.chunks.Len(); got != 4 {
		t.Fatalf("kept %d chunks after the first blob, want 4", got)
	}
	hb, err := s.writeObject(plumbing.BlobObject, b)
	if err != nil {
		t.Fatal(err)
	}
	if got := s.chunks.Len(); got != 5 {
		t.Fatalf("kept %d chunks after the second blob, want 5 (3 shared, 2 tails)", got)
	}
	for h, want := range map[plumbing.Hash][]byte{ha: a, hb: b} {
		if got, err := s.readLoose(plumbing.BlobObject, h); err != nil || !bytes.Equal(got, want) {
			t.Errorf("read back %d bytes of %d, %v", len(got), len(want), err)
		}
		if out := runGit(t, s.Dir(), "cat-file", "-p", h.String()); out != string(want) {
			t.Errorf("git cat-file gave %d bytes of %d", len(out), len(want))
		}
	}
}
