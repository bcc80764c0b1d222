package gitstore

import (
	"bytes"
	"io"
	"path/filepath"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
)

// Objects compressed in chunks (deflate_chunked.go) are ordinary loose
// objects: go-git, keel's own reader and the git CLI read back the bytes
// written, whatever the size against the chunk boundaries, and git fsck
// finds nothing wrong.
func TestChunkedObjectsReadBackIdentical(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	c := chunkSize
	sizes := map[string]int{
		"empty": 0, "one byte": 1, "chunk-1": c - 1, "chunk": c, "chunk+1": c + 1,
		"3 chunks+7": 3*c + 7, "addon payload": 530 << 10,
	}
	written := map[plumbing.Hash][]byte{}
	for name, n := range sizes {
		data := syntheticManifests(n)
		h, err := s.writeObjectAs(plumbing.BlobObject, data, true)
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		written[h] = data
	}
	fresh, err := git.PlainOpen(s.Dir())
	if err != nil {
		t.Fatal(err)
	}
	for h, want := range written {
		got, err := s.readLoose(plumbing.BlobObject, h)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("keel's reader, %d bytes: got %d bytes, %v", len(want), len(got), err)
		}
		b, err := fresh.BlobObject(h)
		if err != nil {
			t.Fatalf("go-git, %d bytes: %v", len(want), err)
		}
		r, err := b.Reader()
		if err != nil {
			t.Fatal(err)
		}
		got, err = io.ReadAll(r)
		if err != nil || !bytes.Equal(got, want) {
			t.Errorf("go-git, %d bytes: got %d bytes, %v", len(want), len(got), err)
		}
		if out := runGit(t, s.Dir(), "cat-file", "-p", h.String()); out != string(want) {
			t.Errorf("git cat-file, %d bytes: got %d bytes", len(want), len(out))
		}
	}
	if out := runGit(t, s.Dir(), "fsck", "--full", "--strict"); strings.Contains(out, "error") || strings.Contains(out, "bad") {
		t.Fatalf("git fsck: %s", out)
	}
}
