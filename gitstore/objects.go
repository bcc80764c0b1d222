package gitstore

import (
	"bytes"
	"compress/zlib"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strconv"
	"sync"

	"github.com/go-git/go-git/v5/plumbing"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// Reading objects. go-git opens a loose object through two filesystem
// abstractions that lstat every component of its path, and only then looks
// in its cache: a tree read cost a dozen system calls, and a create read
// hundreds of trees (the path to each file it looks up, the folders whose
// names it lists, the trees it rewrites). keel reads a loose object itself
// (one open) and keeps decoded trees, which never change under a hash, in
// a bounded cache; packed objects (after a `git gc`) still go through
// go-git.

// maxCachedTrees bounds the decoded-tree cache (a memo.Map): a repository
// of 10,000 clusters has a few folders per cluster on the paths a write
// reads.
const maxCachedTrees = 1 << 16

// tree returns the decoded tree h. The result is shared: callers must not
// modify it (nor call its lazily indexing methods, such as FindEntry).
func (s *Store) tree(h plumbing.Hash) (*gitobject.Tree, error) {
	if t, ok := s.trees.Get(h); ok {
		return t, nil
	}
	t := &gitobject.Tree{}
	data, err := s.readLoose(plumbing.TreeObject, h)
	switch {
	case err == nil:
		obj := &plumbing.MemoryObject{}
		obj.SetType(plumbing.TreeObject)
		_, _ = obj.Write(data) // a memory write: no error
		if err := t.Decode(obj); err != nil {
			return nil, err
		}
	case errors.Is(err, errNotLoose):
		if t, err = s.repo.TreeObject(h); err != nil {
			return nil, err
		}
	default:
		return nil, err
	}
	s.trees.Put(h, t)
	return t, nil
}

// errNotLoose: the object is not stored loose (it is packed, or absent).
var errNotLoose = errors.New("not a loose object")

// looseObjectPath is where Git keeps the loose object h.
func (s *Store) looseObjectPath(h plumbing.Hash) string {
	hex := h.String()
	return filepath.Join(s.dir, "objects", hex[:2], hex[2:])
}

// readLoose returns the content of the loose object h, which must be of
// type t; errNotLoose when there is no such loose object.
func (s *Store) readLoose(t plumbing.ObjectType, h plumbing.Hash) ([]byte, error) {
	f, err := os.Open(s.looseObjectPath(h))
	if errors.Is(err, os.ErrNotExist) {
		return nil, errNotLoose
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	z := inflaters.Get().(*inflater)
	defer inflaters.Put(z)
	if z.r == nil {
		if z.r, err = zlib.NewReader(f); err != nil {
			return nil, fmt.Errorf("object %s: %w", h, err)
		}
	} else if err := z.r.(zlib.Resetter).Reset(f, nil); err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	z.buf.Reset()
	if _, err := io.Copy(&z.buf, z.r); err != nil {
		return nil, fmt.Errorf("object %s: %w", h, err)
	}
	raw := z.buf.Bytes()
	nul := bytes.IndexByte(raw, 0)
	if nul < 0 {
		return nil, fmt.Errorf("object %s: no header", h)
	}
	typ, size, ok := bytes.Cut(raw[:nul], []byte(" "))
	n, err := strconv.Atoi(string(size))
	if !ok || err != nil || n != len(raw)-nul-1 {
		return nil, fmt.Errorf("object %s: bad header %q", h, raw[:nul])
	}
	if string(typ) != t.String() {
		return nil, fmt.Errorf("object %s is a %s, not a %s", h, typ, t)
	}
	return bytes.Clone(raw[nul+1:]), nil
}

// inflater is a zlib reader and its output buffer, reused.
type inflater struct {
	r   io.ReadCloser
	buf bytes.Buffer
}

var inflaters = sync.Pool{New: func() any { return &inflater{} }}
