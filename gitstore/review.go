package gitstore

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// ReviewBranchPrefix names the branches of changes waiting for review.
const ReviewBranchPrefix = "keel/review/"

// ErrNoRemote is returned by Propose without a Git server: a change under
// review lives on the server, as a branch and a pull request.
var ErrNoRemote = errors.New("gitstore: review needs a Git server (--git-remote)")

// Proposal is a change Propose pushed to a branch of the server.
type Proposal struct {
	Branch string
	Base   plumbing.Hash // main's commit it was computed on
	Commit plumbing.Hash
}

// Propose computes fn on HEAD as Update does, but pushes the commit to a
// new branch of the server instead of main; main does not move. Who merges
// the branch's pull request moves main, and keel follows it as any commit.
// fn returning nil (nothing to do) gives a nil Proposal.
func (s *Store) Propose(ctx context.Context, branch string, fn UpdateFunc) (*Proposal, error) {
	if s.remote == nil {
		return nil, ErrNoRemote
	}
	if !strings.HasPrefix(branch, ReviewBranchPrefix) {
		return nil, fmt.Errorf("gitstore: review branch %q outside %s", branch, ReviewBranchPrefix)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	head, err := s.Head()
	if err != nil {
		return nil, err
	}
	parent, err := s.repo.CommitObject(head)
	if err != nil {
		return nil, err
	}
	c, err := fn(&Snapshot{store: s, commit: head, tree: parent.TreeHash})
	if err != nil || c == nil || len(c.Changes) == 0 {
		return nil, err
	}
	tree, err := s.applyChanges(parent.TreeHash, c.Changes)
	if err != nil {
		return nil, err
	}
	if tree == parent.TreeHash {
		return nil, nil
	}
	when := c.Time
	if when.IsZero() {
		when = time.Now()
	}
	commit := c.object(tree, when)
	commit.ParentHashes = []plumbing.Hash{head}
	hash, err := s.storeObject(commit)
	if err != nil {
		return nil, err
	}
	pctx, cancel := context.WithTimeout(ctx, RemoteTimeout)
	defer cancel()
	err = s.remote.PushContext(pctx, &git.PushOptions{
		RemoteName: s.remote.Config().Name,
		RefSpecs:   []config.RefSpec{config.RefSpec(hash.String() + ":" + plumbing.NewBranchReferenceName(branch).String())},
		Auth:       s.remoteCfg.Auth,
	})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil, s.remoteErr("pushing a review branch to", err)
	}
	return &Proposal{Branch: branch, Base: head, Commit: hash}, nil
}
