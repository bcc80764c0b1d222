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
	return s.writeObjectAs(t, data, len(data) >= chunkedMin)
}

// writeObjectAs is writeObject, compressing in chunks (deflate_chunked.go)
// or in one stream.
func (s *Store) writeObjectAs(t plumbing.ObjectType, data []byte, chunked bool) (plumbing.Hash, error) {
	h := hashObject(t, data, chunkSize, &s.shas)
	// One stat, not go-git's lookup (packs, then the loose path through
	// an lstat of each of its components). An object that is only packed
	// (after a `git gc`) is written loose again: Git allows both.
	path := s.looseObjectPath(h)
	if _, err := os.Stat(path); err == nil {
		return h, nil
	}
	z := deflaters.Get().(*deflater)
	defer deflaters.Put(z)
	z.buf.Reset()
	hdr := []byte(t.String() + " " + strconv.Itoa(len(data)) + "\x00")
	if chunked {
		z.buf.Write(appendZlibChunked(z.buf.AvailableBuffer(), hdr, data, chunkSize, &s.chunks))
	} else {
		z.w.Reset(&z.buf)
		_, _ = z.w.Write(hdr)
		_, _ = z.w.Write(data)
		if err := z.w.Close(); err != nil {
			return plumbing.ZeroHash, err
		}
	}
	// Written aside and renamed into place, so that no reader ever sees a
	// partial object. Aside is objects/ itself, not the object's fan-out
	// folder: on ext4, files created in one folder rather than across
	// 256 cost a create about 40% less kernel time (BenchmarkWriteObject).
	// Git names its own temporary objects tmp_obj_*: `git fsck` ignores
	// them there and `git prune` removes those a crash left behind.
	f, err := os.CreateTemp(filepath.Join(s.dir, "objects"), "tmp_obj_")
	if err != nil {
		return plumbing.ZeroHash, err
	}
	_, werr := f.Write(z.buf.Bytes())
	if err := errors.Join(werr, f.Close()); err != nil {
		os.Remove(f.Name())
		return plumbing.ZeroHash, err
	}
	err = os.Rename(f.Name(), path)
	if errors.Is(err, os.ErrNotExist) {
		// The fan-out folder is made when first needed (and `git gc`
		// removes the ones it empties), not stat-ed on every write.
		if err = os.MkdirAll(filepath.Dir(path), 0o755); err == nil {
			err = os.Rename(f.Name(), path)
		}
	}
	if err != nil {
		os.Remove(f.Name())
		return plumbing.ZeroHash, fmt.Errorf("storing %s %s: %w", t, h, err)
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
