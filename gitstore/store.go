// Package gitstore is keel's source of truth: a bare Git repository (go-git,
// also read and written by the git CLI) in which every API mutation is
// exactly one commit. Writers use optimistic concurrency: a change is computed
// against HEAD, committed, and the branch moved with compare-and-swap; when
// another writer moved it first, the change is recomputed on the new HEAD.
// With a Remote (a Git server) the repository is a mirror of the server's
// main: a commit is pushed there before the branch moves (remote.go).
package gitstore

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	"github.com/go-git/go-git/v5/storage"

	"github.com/openkeel/keel/internal/memo"
)

// Branch is the branch keel follows and writes.
const Branch = "main"

// ErrConflict is returned by Update when HEAD kept moving under it for every
// retry.
var ErrConflict = errors.New("gitstore: the repository changed concurrently too many times")

// Store is a bare repository with a single followed branch.
type Store struct {
	dir  string
	repo *git.Repository
	ref  plumbing.ReferenceName

	mu sync.Mutex // serialises writers of this process
	// refMu guards the branch's ref file: go-git rewrites it in place, so
	// a reader racing a writer of this process could find it empty.
	refMu sync.RWMutex
	subs  struct {
		sync.Mutex
		chans []chan plumbing.Hash
	}

	// remote, when set, is the Git server whose main is the truth: a
	// commit is acknowledged only once it is there (remote.go).
	remote    *git.Remote
	remoteCfg Remote

	trees  memo.Map[plumbing.Hash, *gitobject.Tree] // decoded trees by hash (objects.go)
	chunks chunkCache                               // compressed chunks of large objects (deflate_chunked.go)
	shas   shaCache                                 // SHA-1 states after their first chunks (hash_resumed.go)

	written writtenTimes // when this process wrote or fetched its latest commits (written.go)
}

// Open opens the bare repository at dir, creating it (with an initial commit
// holding a README) when it does not exist.
func Open(dir string) (*Store, error) {
	return OpenRemote(context.Background(), dir, nil)
}

// OpenRemote is Open with an optional Git server (nil: none) that the local
// repository mirrors; see attachRemote for how the two are made to agree.
//
// A repository whose branch Git cannot check out is refused with an
// *UncheckoutableError that says how to repair it (OpenForRepair).
func OpenRemote(ctx context.Context, dir string, remote *Remote) (*Store, error) {
	s, err := open(ctx, dir, remote)
	if err != nil {
		return nil, err
	}
	if err := s.checkHeadTree(); err != nil {
		return nil, err
	}
	return s, nil
}

// OpenForRepair opens a repository without refusing one Git cannot check
// out: `keel repo repair` then calls Repair.
func OpenForRepair(dir string) (*Store, error) { return open(context.Background(), dir, nil) }

func open(ctx context.Context, dir string, remote *Remote) (*Store, error) {
	repo, err := git.PlainOpen(dir)
	if errors.Is(err, git.ErrRepositoryNotExists) {
		if err := os.MkdirAll(dir, 0o755); err != nil {
			return nil, err
		}
		repo, err = git.PlainInitWithOptions(dir, &git.PlainInitOptions{
			Bare:        true,
			InitOptions: git.InitOptions{DefaultBranch: plumbing.NewBranchReferenceName(Branch)},
		})
		if err != nil {
			return nil, fmt.Errorf("initialising %s: %w", dir, err)
		}
		// Let `git push` from a clone update the followed branch: that is how
		// a merged pull request or a revert reaches keel.
		cfg, err := repo.Config()
		if err == nil {
			cfg.Raw.Section("receive").SetOption("denyNonFastForwards", "false")
			_ = repo.SetConfig(cfg)
		}
	} else if err != nil {
		return nil, fmt.Errorf("opening %s: %w", dir, err)
	}
	s := &Store{dir: dir, repo: repo, ref: plumbing.NewBranchReferenceName(Branch), trees: memo.Map[plumbing.Hash, *gitobject.Tree]{Max: maxCachedTrees}, chunks: chunkCache{Max: maxChunks}, shas: shaCache{Max: maxChunks}}
	if remote != nil {
		if err := s.attachRemote(ctx, *remote); err != nil {
			return nil, err
		}
	}
	if err := s.checkRefFile(); err != nil {
		return nil, err
	}
	if _, err := s.Head(); errors.Is(err, plumbing.ErrReferenceNotFound) {
		if _, err := s.Update(ctx, func(*Snapshot) (*Commit, error) {
			return &Commit{
				Subject: "keel: initialise the cluster repository",
				Author:  Signature{Name: "keel", Email: "keel@localhost"},
				Changes: []Change{{Path: "README.md", Data: []byte(repoReadme)}},
			}, nil
		}); err != nil {
			return nil, err
		}
	}
	return s, nil
}

const repoReadme = `# keel cluster repository

This repository is the source of truth of a keel (Magnum API) installation.
Every API mutation is one commit; keel applies what is committed to the
management cluster. See keel's docs/repository.md for the layout.
`

// Dir is the repository's folder.
func (s *Store) Dir() string { return s.dir }

// Repo exposes the go-git repository for read-only use.
func (s *Store) Repo() *git.Repository { return s.repo }

// Head returns the commit the followed branch points at.
func (s *Store) Head() (plumbing.Hash, error) {
	s.refMu.RLock()
	defer s.refMu.RUnlock()
	ref, err := s.repo.Storer.Reference(s.ref)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// Signature names a commit's author.
type Signature struct{ Name, Email string }

// Trailer is a `Key: value` line at the end of a commit message.
type Trailer struct{ Key, Value string }

// Change writes Data at Path, or removes Path (a file, or a whole folder)
// when Delete is set.
type Change struct {
	Path   string
	Data   []byte
	Delete bool
}

// Commit is what an update function returns: the changes and their message.
// A nil *Commit means "nothing to do".
type Commit struct {
	Subject  string
	Body     string
	Trailers []Trailer
	Author   Signature
	Changes  []Change
	// Time is the commit time; zero means now.
	Time time.Time
	// repair: the commit's tree is its parent's without the entries Git
	// cannot check out (Repair), not the parent's with Changes.
	repair bool
}

// Message renders the full commit message. Whatever the caller put in
// them, the subject and each trailer stay one line and the message holds
// no NUL or other control character but the body's newlines and tabs
// (escapeLine, escapeBody): a request value cannot forge a trailer, end
// the subject early or make `git fsck` warn (nulInCommit).
func (c *Commit) Message() string {
	var b strings.Builder
	b.WriteString(escapeLine(c.Subject))
	b.WriteString("\n")
	if body := strings.TrimRight(escapeBody(c.Body), "\n"); body != "" {
		b.WriteString("\n")
		b.WriteString(body)
		b.WriteString("\n")
	}
	if len(c.Trailers) > 0 {
		b.WriteString("\n")
		for _, t := range c.Trailers {
			fmt.Fprintf(&b, "%s: %s\n", trailerKey(t.Key), escapeLine(t.Value))
		}
	}
	return b.String()
}

// UpdateFunc computes a commit from a snapshot of HEAD. It may be called more
// than once (once per retry) and must not have side effects.
type UpdateFunc func(*Snapshot) (*Commit, error)

// MaxRetries bounds how often Update recomputes a change on a moved HEAD.
const MaxRetries = 64

// Update applies fn on HEAD and commits the result with compare-and-swap. It
// returns the new commit, or the unchanged HEAD when fn returned nil. An
// error from fn is returned as is and nothing is committed.
func (s *Store) Update(ctx context.Context, fn UpdateFunc) (plumbing.Hash, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	for attempt := 0; attempt < MaxRetries; attempt++ {
		if err := ctx.Err(); err != nil {
			return plumbing.ZeroHash, err
		}
		head, err := s.Head()
		var parent *gitobject.Commit
		var base plumbing.Hash // tree
		switch {
		case errors.Is(err, plumbing.ErrReferenceNotFound):
		case err != nil:
			return plumbing.ZeroHash, err
		default:
			if parent, err = s.repo.CommitObject(head); err != nil {
				return plumbing.ZeroHash, err
			}
			base = parent.TreeHash
		}
		snap := &Snapshot{store: s, commit: head, tree: base}
		c, err := fn(snap)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if c == nil || len(c.Changes) == 0 && !c.repair {
			return head, nil
		}
		tree, err := s.treeOf(base, c)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if tree == base && parent != nil {
			return head, nil // the changes rewrote what was there
		}
		when := c.Time
		if when.IsZero() {
			when = time.Now()
		}
		commit := c.object(tree, when)
		if parent != nil {
			commit.ParentHashes = []plumbing.Hash{head}
		}
		hash, err := s.storeObject(commit)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		if s.remote != nil {
			// The remote first: what it has not accepted is not
			// acknowledged, and a remote that moved is followed.
			moved, err := s.publish(ctx, head, hash)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if moved {
				continue
			}
		}
		var oldHead plumbing.Hash // zero: the branch is created
		if parent != nil {
			oldHead = head
		}
		err = s.casBranch(oldHead, hash)
		if err != nil && s.remote != nil && isConcurrent(err) {
			// The remote accepted the commit, so it is acknowledged; the
			// local branch (moved by another process) just follows it.
			err = s.catchUp(hash)
		}
		if err != nil {
			if isConcurrent(err) {
				continue // someone (a git push) moved the branch: recompute
			}
			return plumbing.ZeroHash, err
		}
		if err := s.syncRef(); err != nil {
			return plumbing.ZeroHash, err
		}
		s.notify(hash)
		return hash, nil
	}
	return plumbing.ZeroHash, ErrConflict
}

func isConcurrent(err error) bool {
	return errors.Is(err, storage.ErrReferenceHasChanged) || strings.Contains(err.Error(), "changed concurrently")
}

// syncRef makes the new branch tip durable before an API answers. The ref's
// content was flushed before casBranch renamed it into place; what remains
// is the folders' entries that the renames changed (the ref, objects).
func (s *Store) syncRef() error {
	for _, p := range []string{filepath.Dir(s.refPath()), filepath.Join(s.dir, "objects")} {
		f, err := os.Open(p)
		if err != nil {
			continue
		}
		err = f.Sync()
		f.Close()
		if err != nil {
			return fmt.Errorf("syncing %s: %w", p, err)
		}
	}
	return nil
}

func (s *Store) storeObject(o interface {
	Encode(plumbing.EncodedObject) error
}) (plumbing.Hash, error) {
	var obj plumbing.MemoryObject
	if err := o.Encode(&obj); err != nil {
		return plumbing.ZeroHash, err
	}
	r, err := obj.Reader()
	if err != nil {
		return plumbing.ZeroHash, err
	}
	data, err := io.ReadAll(r)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return s.writeObject(obj.Type(), data)
}

// applyChanges rewrites only the subtrees that the changes touch; untouched
// subtrees keep their hashes, so a commit costs O(depth), not O(repository).
// treeOf is the tree of c on a parent whose tree is base.
func (s *Store) treeOf(base plumbing.Hash, c *Commit) (plumbing.Hash, error) {
	if c.repair {
		return s.dropUncheckoutable(base)
	}
	return s.applyChanges(base, c.Changes)
}

func (s *Store) applyChanges(base plumbing.Hash, changes []Change) (plumbing.Hash, error) {
	root := &node{children: map[string]*node{}}
	for _, c := range changes {
		p := c.Path
		if err := CheckPath(p); err != nil {
			return plumbing.ZeroHash, err
		}
		n := root
		parts := strings.Split(p, "/")
		for _, part := range parts[:len(parts)-1] {
			child := n.children[part]
			if child == nil || child.leaf {
				// A folder deleted earlier in the same commit is rebuilt from
				// scratch: only what this commit writes into it remains.
				fresh := child != nil && child.delete
				child = &node{children: map[string]*node{}, fresh: fresh}
				n.children[part] = child
			}
			n = child
		}
		last := parts[len(parts)-1]
		n.children[last] = &node{leaf: true, data: c.Data, delete: c.Delete}
	}
	return s.writeTree(base, root)
}

type node struct {
	leaf     bool
	fresh    bool
	data     []byte
	delete   bool
	children map[string]*node
}

func (s *Store) writeTree(base plumbing.Hash, n *node) (plumbing.Hash, error) {
	entries := map[string]gitobject.TreeEntry{}
	if !base.IsZero() {
		t, err := s.tree(base)
		if err != nil {
			return plumbing.ZeroHash, err
		}
		for _, e := range t.Entries {
			entries[e.Name] = e
		}
	}
	for name, child := range n.children {
		old, had := entries[name]
		switch {
		case child.leaf && child.delete:
			delete(entries, name)
		case child.leaf:
			h, err := s.writeBlob(child.data)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			entries[name] = gitobject.TreeEntry{Name: name, Mode: filemode.Regular, Hash: h}
		default:
			var sub plumbing.Hash
			if had && old.Mode == filemode.Dir && !child.fresh {
				sub = old.Hash
			}
			h, err := s.writeTree(sub, child)
			if err != nil {
				return plumbing.ZeroHash, err
			}
			if h.IsZero() {
				delete(entries, name) // the folder became empty
			} else {
				entries[name] = gitobject.TreeEntry{Name: name, Mode: filemode.Dir, Hash: h}
			}
		}
	}
	if len(entries) == 0 {
		return plumbing.ZeroHash, nil
	}
	list := make([]gitobject.TreeEntry, 0, len(entries))
	for _, e := range entries {
		list = append(list, e)
	}
	// Git orders entries by name, comparing a folder as if it ended in "/".
	sort.Slice(list, func(i, j int) bool { return sortName(list[i]) < sortName(list[j]) })
	t := &gitobject.Tree{Entries: list}
	h, err := s.storeObject(t)
	if err == nil {
		t.Hash = h
		s.trees.Put(h, t) // the next write (or read) starts from it
	}
	return h, err
}

func sortName(e gitobject.TreeEntry) string {
	if e.Mode == filemode.Dir {
		return e.Name + "/"
	}
	return e.Name
}

// Subscribe returns a channel that receives the hash of every commit this
// process writes. Slow readers only miss intermediate hashes, never the
// latest: the channel holds one pending value.
func (s *Store) Subscribe() <-chan plumbing.Hash {
	ch := make(chan plumbing.Hash, 1)
	s.subs.Lock()
	s.subs.chans = append(s.subs.chans, ch)
	s.subs.Unlock()
	return ch
}

func (s *Store) notify(h plumbing.Hash) {
	s.written.add(h, time.Now())
	s.subs.Lock()
	defer s.subs.Unlock()
	for _, ch := range s.subs.chans {
		select {
		case ch <- h:
		default:
			// Replace the pending value with the newer one.
			select {
			case <-ch:
			default:
			}
			select {
			case ch <- h:
			default:
			}
		}
	}
}
