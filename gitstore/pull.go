package gitstore

import (
	"context"
	"errors"
	"fmt"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
)

// PullRef is the server's ref of a pull request's head on Gitea, Forgejo
// and GitHub, which publish it for every pull request, also for a branch
// of a fork that keel's credentials could not fetch by name.
func PullRef(number int64) string { return fmt.Sprintf("refs/pull/%d/head", number) }

// MergeRequestRef is GitLab's ref of a merge request's head (by iid).
func MergeRequestRef(iid int64) string { return fmt.Sprintf("refs/merge-requests/%d/head", iid) }

// FetchPull brings the server's ref (PullRef or MergeRequestRef) of pull
// request number into refs/keel/pull/<number> and returns its commit; the
// local ref stays, so that the next push to it fetches only what is new.
// Like Sync it holds the store's lock, so it never interleaves with a
// fetch of main.
func (s *Store) FetchPull(ctx context.Context, number int64, ref string) (plumbing.Hash, error) {
	if s.remote == nil {
		return plumbing.ZeroHash, ErrNoRemote
	}
	local := plumbing.ReferenceName(fmt.Sprintf("refs/keel/pull/%d", number))
	spec := config.RefSpec("+" + ref + ":" + local.String())
	if err := spec.Validate(); err != nil {
		return plumbing.ZeroHash, err
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	ctx, cancel := context.WithTimeout(ctx, RemoteTimeout)
	defer cancel()
	err := s.remote.FetchContext(ctx, &git.FetchOptions{RefSpecs: []config.RefSpec{spec}, Auth: s.remoteCfg.Auth})
	if err != nil && !errors.Is(err, git.NoErrAlreadyUpToDate) {
		return plumbing.ZeroHash, s.remoteErr(fmt.Sprintf("fetching pull request %d from", number), err)
	}
	got, err := s.repo.Storer.Reference(local)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return got.Hash(), nil
}

// MergeBase is the best common ancestor of two commits (zero when they
// share none): what a pull request's change is measured against.
func (s *Store) MergeBase(a, b plumbing.Hash) (plumbing.Hash, error) {
	ca, err := s.repo.CommitObject(a)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	cb, err := s.repo.CommitObject(b)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	bases, err := ca.MergeBase(cb)
	if err != nil || len(bases) == 0 {
		return plumbing.ZeroHash, err
	}
	return bases[0].Hash, nil
}
