package gitstore

import (
	"errors"
	"io"
	"io/fs"
	"path"
	"sort"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// ErrNotFound is returned for a path that is not in a snapshot. It is an
// fs.ErrNotExist too, so that code reading a snapshot through intent.Tree
// (which a directory on disk also implements) tells "absent" the same way.
var ErrNotFound error = notFound{}

type notFound struct{}

func (notFound) Error() string        { return "not found" }
func (notFound) Is(target error) bool { return target == fs.ErrNotExist }

// Snapshot is a read-only view of the repository at one commit.
type Snapshot struct {
	store  *Store
	commit plumbing.Hash
	tree   plumbing.Hash
	// parent is the commit's first parent, read with it by SnapshotAt
	// (zero for a root commit, and in the snapshots an update hands its
	// function).
	parent plumbing.Hash
	// reads, when not nil (Tracked), records every path looked up and
	// the hash found there (zero: absent).
	reads map[string]plumbing.Hash
}

// Tracked returns a snapshot of the same commit that records the paths
// read through it, for ReadsSame.
func (sn *Snapshot) Tracked() *Snapshot {
	return &Snapshot{store: sn.store, commit: sn.commit, tree: sn.tree, parent: sn.parent, reads: map[string]plumbing.Hash{}}
}

// ReadsSame reports whether every path read through sn (a Tracked
// snapshot) holds the same content in other: the same blob or tree, or
// absent in both. A computation that read other's repository only through
// sn would then give the same result on other: what a writer prepares
// before taking the repository's lock stays valid under it unless one of
// its inputs was changed in between.
func (sn *Snapshot) ReadsSame(other *Snapshot) bool {
	if sn.reads == nil {
		return false
	}
	if sn.tree == other.tree {
		return true
	}
	for p, h := range sn.reads {
		e, err := other.lookup(p)
		switch {
		case errors.Is(err, ErrNotFound):
			if !h.IsZero() {
				return false
			}
		case err != nil:
			return false
		case e.Hash != h:
			return false
		}
	}
	return true
}

// SnapshotAt returns the snapshot of a commit.
func (s *Store) SnapshotAt(commit plumbing.Hash) (*Snapshot, error) {
	c, err := s.repo.CommitObject(commit)
	if err != nil {
		return nil, err
	}
	sn := &Snapshot{store: s, commit: commit, tree: c.TreeHash}
	if len(c.ParentHashes) > 0 {
		sn.parent = c.ParentHashes[0]
	}
	return sn, nil
}

// SnapshotHead returns the snapshot of HEAD.
func (s *Store) SnapshotHead() (*Snapshot, error) {
	h, err := s.Head()
	if err != nil {
		return nil, err
	}
	return s.SnapshotAt(h)
}

// Resolve turns a revision (a hash, a branch, HEAD, HEAD~1, ...) into a commit.
func (s *Store) Resolve(rev string) (plumbing.Hash, error) {
	h, err := s.repo.ResolveRevision(plumbing.Revision(rev))
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return *h, nil
}

// Commit is the snapshot's commit (zero for the empty repository).
func (sn *Snapshot) Commit() plumbing.Hash { return sn.commit }

// Parent is the first parent of a snapshot from SnapshotAt or SnapshotHead
// (ok false for a root commit).
func (sn *Snapshot) Parent() (parent plumbing.Hash, ok bool) { return sn.parent, !sn.parent.IsZero() }

// Tree is the snapshot's root tree.
func (sn *Snapshot) Tree() plumbing.Hash { return sn.tree }

func (sn *Snapshot) lookup(p string) (*gitobject.TreeEntry, error) {
	e, err := sn.find(p)
	if sn.reads != nil {
		switch {
		case err == nil:
			sn.reads[strings.Trim(p, "/")] = e.Hash
		case errors.Is(err, ErrNotFound):
			sn.reads[strings.Trim(p, "/")] = plumbing.ZeroHash
		}
	}
	return e, err
}

func (sn *Snapshot) find(p string) (*gitobject.TreeEntry, error) {
	if sn.tree.IsZero() {
		return nil, ErrNotFound
	}
	p = strings.Trim(p, "/")
	if p == "" {
		return &gitobject.TreeEntry{Mode: filemode.Dir, Hash: sn.tree}, nil
	}
	h := sn.tree
	parts := strings.Split(p, "/")
	for i, part := range parts {
		t, err := sn.store.tree(h)
		if err != nil {
			return nil, err
		}
		var found *gitobject.TreeEntry
		for j := range t.Entries {
			if t.Entries[j].Name == part {
				found = &t.Entries[j]
				break
			}
		}
		if found == nil {
			return nil, ErrNotFound
		}
		if i == len(parts)-1 {
			e := *found
			return &e, nil
		}
		if found.Mode != filemode.Dir {
			return nil, ErrNotFound
		}
		h = found.Hash
	}
	return nil, ErrNotFound
}

// ReadFile returns the content of the file at p.
func (sn *Snapshot) ReadFile(p string) ([]byte, error) {
	e, err := sn.lookup(p)
	if err != nil {
		return nil, err
	}
	if e.Mode == filemode.Dir {
		return nil, ErrNotFound
	}
	return sn.store.readBlob(e.Hash)
}

// Exists reports whether p is a file or folder in the snapshot.
func (sn *Snapshot) Exists(p string) bool {
	_, err := sn.lookup(p)
	return err == nil
}

// Hash returns the object hash of a file or folder, which changes exactly
// when its content does: the cheap way to tell whether a cluster changed.
func (sn *Snapshot) Hash(p string) (plumbing.Hash, error) {
	e, err := sn.lookup(p)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return e.Hash, nil
}

// ObjectID is Hash as hex: what layers that do not import go-git (schemas'
// site-file cache) key on.
func (sn *Snapshot) ObjectID(p string) (string, error) {
	h, err := sn.Hash(p)
	if err != nil {
		return "", err
	}
	return h.String(), nil
}

// Entry is one name in a folder listing.
type Entry struct {
	Name string
	Dir  bool
	Hash plumbing.Hash
}

// List returns the entries of the folder at p, sorted by name. A missing
// folder lists as empty.
func (sn *Snapshot) List(p string) ([]Entry, error) {
	e, err := sn.lookup(p)
	if errors.Is(err, ErrNotFound) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, nil
	}
	t, err := sn.store.tree(e.Hash)
	if err != nil {
		return nil, err
	}
	out := make([]Entry, 0, len(t.Entries))
	for _, te := range t.Entries {
		out = append(out, Entry{Name: te.Name, Dir: te.Mode == filemode.Dir, Hash: te.Hash})
	}
	sort.Slice(out, func(i, j int) bool { return out[i].Name < out[j].Name })
	return out, nil
}

// ReadDir lists the folder at p as fs.DirEntry values, sorted by name, so
// that a snapshot is an intent.Tree like os.DirFS. A missing folder is
// ErrNotFound (an fs.ErrNotExist), as fs.ReadDirFS wants.
func (sn *Snapshot) ReadDir(p string) ([]fs.DirEntry, error) {
	e, err := sn.lookup(p)
	if err != nil {
		return nil, err
	}
	if e.Mode != filemode.Dir {
		return nil, ErrNotFound
	}
	es, err := sn.List(p)
	if err != nil {
		return nil, err
	}
	out := make([]fs.DirEntry, len(es))
	for i, e := range es {
		out[i] = dirEntry{e}
	}
	return out, nil
}

// dirEntry is an Entry as an fs.DirEntry (without file info: intent
// readers need names and kinds only).
type dirEntry struct{ e Entry }

func (d dirEntry) Name() string { return d.e.Name }
func (d dirEntry) IsDir() bool  { return d.e.Dir }
func (d dirEntry) Type() fs.FileMode {
	if d.e.Dir {
		return fs.ModeDir
	}
	return 0
}
func (d dirEntry) Info() (fs.FileInfo, error) { return nil, errors.ErrUnsupported }

// Walk calls fn for every file below the folder p (recursively), in path
// order. Returning an error stops the walk.
func (sn *Snapshot) Walk(p string, fn func(path string, data []byte) error) error {
	entries, err := sn.List(p)
	if err != nil {
		return err
	}
	for _, e := range entries {
		full := path.Join(p, e.Name)
		if e.Dir {
			if err := sn.Walk(full, fn); err != nil {
				return err
			}
			continue
		}
		data, err := sn.store.readBlob(e.Hash)
		if err != nil {
			return err
		}
		if err := fn(full, data); err != nil {
			return err
		}
	}
	return nil
}

func (s *Store) readBlob(h plumbing.Hash) ([]byte, error) {
	if data, err := s.readLoose(plumbing.BlobObject, h); !errors.Is(err, errNotLoose) {
		return data, err
	}
	b, err := s.repo.BlobObject(h)
	if err != nil {
		return nil, err
	}
	r, err := b.Reader()
	if err != nil {
		return nil, err
	}
	defer r.Close()
	return io.ReadAll(r)
}

// CommitInfo describes a commit for status and audit views.
type CommitInfo struct {
	Hash     plumbing.Hash
	Subject  string
	Author   string
	Trailers map[string]string
}

// Info returns a commit's subject, author and trailers.
func (s *Store) Info(h plumbing.Hash) (*CommitInfo, error) {
	c, err := s.repo.CommitObject(h)
	if err != nil {
		return nil, err
	}
	return &CommitInfo{Hash: h, Subject: strings.SplitN(c.Message, "\n", 2)[0], Author: c.Author.Name, Trailers: ParseTrailers(c.Message)}, nil
}

// ParseTrailers reads the `Key: value` lines of a message's last paragraph.
func ParseTrailers(msg string) map[string]string {
	paras := strings.Split(strings.TrimSpace(msg), "\n\n")
	if len(paras) < 2 {
		return nil
	}
	out := map[string]string{}
	for _, line := range strings.Split(paras[len(paras)-1], "\n") {
		k, v, ok := strings.Cut(line, ": ")
		if !ok || strings.ContainsAny(k, " \t") {
			return nil // not a trailer block
		}
		out[k] = v
	}
	return out
}

// ChangedPaths lists the files that differ between two snapshots (added,
// modified or removed). Subtrees with equal hashes are skipped, so the cost
// follows the size of the change, not of the repository.
func ChangedPaths(a, b *Snapshot) ([]string, error) {
	var out []string
	var walk func(p string, ha, hb plumbing.Hash) error
	walk = func(p string, ha, hb plumbing.Hash) error {
		if ha == hb {
			return nil
		}
		ea, err := listTree(a, ha)
		if err != nil {
			return err
		}
		eb, err := listTree(b, hb)
		if err != nil {
			return err
		}
		names := map[string]bool{}
		for n := range ea {
			names[n] = true
		}
		for n := range eb {
			names[n] = true
		}
		sorted := make([]string, 0, len(names))
		for n := range names {
			sorted = append(sorted, n)
		}
		sort.Strings(sorted)
		for _, n := range sorted {
			x, inA := ea[n]
			y, inB := eb[n]
			full := path.Join(p, n)
			if inA && inB && x.Hash == y.Hash && x.Mode == y.Mode {
				continue
			}
			var da, db plumbing.Hash
			if inA && x.Mode == filemode.Dir {
				da = x.Hash
			}
			if inB && y.Mode == filemode.Dir {
				db = y.Hash
			}
			if (inA && x.Mode != filemode.Dir) || (inB && y.Mode != filemode.Dir) {
				out = append(out, full)
			}
			if !da.IsZero() || !db.IsZero() {
				if err := walk(full, da, db); err != nil {
					return err
				}
			}
		}
		return nil
	}
	var ta, tb plumbing.Hash
	if a != nil {
		ta = a.tree
	}
	if b != nil {
		tb = b.tree
	}
	if err := walk("", ta, tb); err != nil {
		return nil, err
	}
	return out, nil
}

func listTree(sn *Snapshot, h plumbing.Hash) (map[string]gitobject.TreeEntry, error) {
	out := map[string]gitobject.TreeEntry{}
	if sn == nil || h.IsZero() {
		return out, nil
	}
	t, err := sn.store.tree(h)
	if err != nil {
		return nil, err
	}
	for _, e := range t.Entries {
		out[e.Name] = e
	}
	return out, nil
}

// ID identifies the repository: the hash of its first commit, the same in
// every clone. The reconciler labels what it applies with it, so that two
// keel installations sharing a management cluster never prune each other.
func (s *Store) ID() (string, error) {
	h, err := s.Head()
	if err != nil {
		return "", err
	}
	for {
		c, err := s.repo.CommitObject(h)
		if err != nil {
			return "", err
		}
		if len(c.ParentHashes) == 0 {
			return h.String()[:16], nil
		}
		h = c.ParentHashes[0]
	}
}

// ReadFileInTree reads the file at p below the tree object tree (for
// instance a cluster folder's tree recorded in an inventory).
func (s *Store) ReadFileInTree(tree plumbing.Hash, p string) ([]byte, error) {
	sn := &Snapshot{store: s, tree: tree}
	return sn.ReadFile(p)
}
