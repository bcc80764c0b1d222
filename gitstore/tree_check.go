package gitstore

import (
	"context"
	"fmt"
	"path"
	"strings"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/filemode"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
)

// UncheckoutableError: the branch's tree holds entries Git refuses to check
// out ("..", ".git", an empty name), so every `git clone` of the repository
// fails at checkout. keel refuses to start on it rather than serve and
// publish a repository its users cannot clone; Repair removes the entries.
type UncheckoutableError struct {
	Dir   string
	Paths []string // the entries (at most maxReported), quoted
}

const maxReported = 20

func (e *UncheckoutableError) Error() string {
	return fmt.Sprintf("the cluster repository %s holds tree entries Git cannot check out, so it cannot be cloned: %s. "+
		"Repair it with `keel repo repair --repo %s` (stop keel first): it commits a tree without them, "+
		"and their content stays in the history (docs/repository.md, \"Repairing a repository\")",
		e.Dir, strings.Join(e.Paths, ", "), e.Dir)
}

// checkHeadTree refuses a branch whose tree Git cannot check out. It reads
// every tree of HEAD once (no blob), which the first reads then find cached.
func (s *Store) checkHeadTree() error {
	head, err := s.Head()
	if err != nil {
		return nil // no branch yet: Open initialises it
	}
	c, err := s.repo.CommitObject(head)
	if err != nil {
		return err
	}
	var bad []string
	if err := s.walkUncheckoutable(c.TreeHash, "", &bad); err != nil {
		return err
	}
	if len(bad) > 0 {
		return &UncheckoutableError{Dir: s.dir, Paths: bad}
	}
	return nil
}

func (s *Store) walkUncheckoutable(h plumbing.Hash, dir string, bad *[]string) error {
	t, err := s.tree(h)
	if err != nil {
		return err
	}
	for _, e := range t.Entries {
		if why := checkoutProblem(e.Name); why != "" {
			if len(*bad) < maxReported {
				*bad = append(*bad, fmt.Sprintf("%q in %q (%s)", e.Name, dir+"/", why))
			}
			continue
		}
		if e.Mode == filemode.Dir {
			if err := s.walkUncheckoutable(e.Hash, path.Join(dir, e.Name), bad); err != nil {
				return err
			}
		}
	}
	return nil
}

// Repair commits, on top of the branch, its tree without the entries Git
// cannot check out (and without folders left empty by their removal). It
// changes nothing when there are none. The removed content stays reachable
// in the earlier commits; a history without it needs a rewrite (git
// filter-repo), which Repair does not do: clones of the old history would
// diverge.
func (s *Store) Repair(ctx context.Context) (plumbing.Hash, error) {
	return s.Update(ctx, func(sn *Snapshot) (*Commit, error) {
		var bad []string
		if err := s.walkUncheckoutable(sn.tree, "", &bad); err != nil || len(bad) == 0 {
			return nil, err
		}
		return &Commit{
			Subject: "keel repo repair: remove tree entries Git cannot check out",
			Body:    "Removed: " + strings.Join(bad, ", "),
			Author:  committer,
			repair:  true,
		}, nil
	})
}

// dropUncheckoutable is the tree h without the entries Git cannot check
// out; the zero hash when nothing is left.
func (s *Store) dropUncheckoutable(h plumbing.Hash) (plumbing.Hash, error) {
	t, err := s.tree(h)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	list := make([]gitobject.TreeEntry, 0, len(t.Entries))
	for _, e := range t.Entries {
		if checkoutProblem(e.Name) != "" {
			continue
		}
		if e.Mode == filemode.Dir {
			if e.Hash, err = s.dropUncheckoutable(e.Hash); err != nil {
				return plumbing.ZeroHash, err
			}
			if e.Hash.IsZero() {
				continue
			}
		}
		list = append(list, e)
	}
	if len(list) == 0 {
		return plumbing.ZeroHash, nil
	}
	return s.storeObject(&gitobject.Tree{Entries: list})
}
