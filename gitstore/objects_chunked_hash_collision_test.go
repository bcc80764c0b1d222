package gitstore

import (
	"bytes"
	"hash/maphash"
	"path/filepath"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"
)

// A kept chunk is found by a 64-bit hash of its content; one whose hash
// collides with another's (forced here) is compressed anew, never taken
// for the other.
func TestChunkedObjectsSurviveAHashCollision(t *testing.T) {
	s, err := Open(filepath.Join(t.TempDir(), "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	data := syntheticManifests(2 * chunkSize)
	other := bytes.Repeat([]byte("x"), chunkSize)
	impostor := deflateChunk(other, &chunkCache{Max: 1})
	for _, chunk := range [][]byte{data[:chunkSize], data[chunkSize:]} {
		s.chunks.Put(chunkKey{sum: maphash.Bytes(chunkSeed, chunk), n: len(chunk)}, impostor)
	}
	h, err := s.writeObject(plumbing.BlobObject, data)
	if err != nil {
		t.Fatal(err)
	}
	if got, err := s.readLoose(plumbing.BlobObject, h); err != nil || !bytes.Equal(got, data) {
		t.Fatalf("read back %d bytes, %v", len(got), err)
	}
}
