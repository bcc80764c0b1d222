package gitstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
)

// writeBlob stores data as a loose blob object, unless the repository
// already has it, and returns its hash.
//
// keel writes blobs itself rather than through go-git's object storage:
// that one compresses at zlib's default level into a temporary file made
// through two filesystem abstractions, which was nearly half the CPU of a
// cluster create (the addon payloads are half a megabyte). A loose object
// is "<type> <size>\0<data>" deflated; Git reads any compression level, and
// the fastest level costs a few percent of space on files this repetitive.
// An object that exists is not written again: the same payload committed
// for another cluster, or written ahead by WriteBlobs, costs a SHA-1.
func (s *Store) writeBlob(data []byte) (plumbing.Hash, error) {
	return s.writeObject(plumbing.BlobObject, data)
}

// writeObject stores a loose object of type t (blob, tree, commit).
func (s *Store) writeObject(t plumbing.ObjectType, data []byte) (plumbing.Hash, error) {
	h := plumbing.ComputeHash(t, data)
	// One stat, not go-git's lookup (packs, then the loose path through
	// an lstat of each of its components). An object that is only packed
	// (after a `git gc`) is written loose again: Git allows both.
	if _, err := os.Stat(s.looseObjectPath(h)); err == nil {
		return h, nil
	}
	hex := h.String()
	dir := filepath.Join(s.dir, "objects", hex[:2])
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return plumbing.ZeroHash, err
	}
	z := deflaters.Get().(*deflater)
	defer deflaters.Put(z)
	z.buf.Reset()
	z.w.Reset(&z.buf)
	_, _ = z.w.Write([]byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00"))
	_, _ = z.w.Write(data)
	if err := z.w.Close(); err != nil {
		return plumbing.ZeroHash, err
	}
	// Written aside and renamed into place, so that no reader ever sees a
	// partial object. (Five system calls: on a busy machine they cost more
	// than the compression.)
	f, err := os.CreateTemp(dir, "tmp_obj_")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	_, werr := f.Write(z.buf.Bytes())
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return plumbing.ZeroHash, err
	}
	if err := os.Rename(f.Name(), filepath.Join(dir, hex[2:])); err != nil {
		os.Remove(f.Name())
		return plumbing.ZeroHash, fmt.Errorf("storing %s %s: %w", t, hex, err)
	}
	return h, nil
}

// deflater is a zlib writer and its output buffer, reused: a new flate
// writer allocates about a megabyte of tables, more than compressing most
// blobs costs.
type deflater struct {
	w   *zlib.Writer
	buf bytes.Buffer
}

var deflaters = sync.Pool{New: func() any {
	d := &deflater{}
	d.w, _ = zlib.NewWriterLevel(&d.buf, zlib.BestSpeed) // a valid level: no error
	return d
}}

// WriteBlobs stores the blobs of changes ahead of a commit (Update finds
// them and does not write them again). Callers use it to do that work
// before they take the repository's lock; blobs no commit ends up naming
// are unreachable objects, which `git gc` removes.
func (s *Store) WriteBlobs(changes []Change) error {
	for _, c := range changes {
		if c.Delete {
			continue
		}
		if _, err := s.writeBlob(c.Data); err != nil {
			return err
		}
	}
	return nil
}
