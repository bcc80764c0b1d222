package gitstore

import (
	"context"
	"errors"
	"fmt"
	"net/url"
	"os"
	"strings"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/plumbing/transport"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"
	gitssh "github.com/go-git/go-git/v5/plumbing/transport/ssh"
)

// ErrRemoteUnavailable is returned when the configured Git server could not
// be reached or did not accept a commit: nothing was acknowledged.
var ErrRemoteUnavailable = errors.New("gitstore: the Git remote is unavailable")

// ErrDiverged is returned at start-up when the local repository holds
// commits the remote lacks and the remote is not their ancestor.
var ErrDiverged = errors.New("gitstore: the local repository and the Git remote have diverged")

// Remote is the Git server whose main branch is the source of truth; the
// local bare repository is then keel's working mirror of it.
type Remote struct {
	// URL is anything go-git clones: https://, ssh://, user@host:path,
	// file:// or a local path.
	URL string
	// Auth is nil for the transport's default (ssh-agent for SSH, none for
	// HTTPS and files).
	Auth transport.AuthMethod
}

// AuthFromEnv builds the credentials for url from the environment, so that
// they are never in a flag, a log line or the repository's config:
// KEEL_GIT_USERNAME and KEEL_GIT_PASSWORD (an HTTPS token) for http(s)
// URLs; KEEL_GIT_SSH_KEY (a private key file, with an optional
// KEEL_GIT_SSH_KEY_PASSPHRASE) for SSH URLs.
func AuthFromEnv(rawURL string) (transport.AuthMethod, error) {
	ep, err := transport.NewEndpoint(rawURL)
	if err != nil {
		return nil, fmt.Errorf("git remote %s: %w", RedactURL(rawURL), err)
	}
	switch ep.Protocol {
	case "http", "https":
		user, pass := os.Getenv("KEEL_GIT_USERNAME"), os.Getenv("KEEL_GIT_PASSWORD")
		if pass == "" {
			return nil, nil
		}
		if user == "" {
			user = "git" // token-only: servers ignore the user name
		}
		return &githttp.BasicAuth{Username: user, Password: pass}, nil
	case "ssh":
		key := os.Getenv("KEEL_GIT_SSH_KEY")
		if key == "" {
			return nil, nil
		}
		user := ep.User
		if user == "" {
			user = "git"
		}
		auth, err := gitssh.NewPublicKeysFromFile(user, key, os.Getenv("KEEL_GIT_SSH_KEY_PASSPHRASE"))
		if err != nil {
			return nil, fmt.Errorf("KEEL_GIT_SSH_KEY: %w", err)
		}
		return auth, nil
	}
	return nil, nil
}

// RedactURL hides a password or token embedded in a remote URL.
func RedactURL(raw string) string {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil {
		return raw
	}
	if _, ok := u.User.Password(); ok {
		u.User = url.UserPassword(u.User.Username(), "xxxxx")
	}
	return u.String()
}

// RemoteTimeout bounds one fetch or push: writers wait for each other, so
// a Git server that hangs must not hold them all forever.
const RemoteTimeout = 30 * time.Second

const trackingRef = plumbing.ReferenceName("refs/remotes/origin/" + Branch)

// remoteErr wraps a transport error as ErrRemoteUnavailable, without any
// credential the URL may embed.
func (s *Store) remoteErr(op string, err error) error {
	msg := err.Error()
	if u, perr := url.Parse(s.remoteCfg.URL); perr == nil && u.User != nil {
		if p, ok := u.User.Password(); ok && p != "" {
			msg = strings.ReplaceAll(msg, p, "xxxxx")
		}
	}
	return fmt.Errorf("%w: %s %s: %s", ErrRemoteUnavailable, op, RedactURL(s.remoteCfg.URL), msg)
}

// fetch brings the remote's main into refs/remotes/origin/main and returns
// it; zero when the remote has no main.
func (s *Store) fetch(ctx context.Context) (plumbing.Hash, error) {
	ctx, cancel := context.WithTimeout(ctx, RemoteTimeout)
	defer cancel()
	err := s.remote.FetchContext(ctx, &git.FetchOptions{
		RefSpecs: []config.RefSpec{config.RefSpec("+" + plumbing.NewBranchReferenceName(Branch) + ":" + trackingRef)},
		Auth:     s.remoteCfg.Auth,
	})
	switch {
	case err == nil, errors.Is(err, git.NoErrAlreadyUpToDate):
	case errors.Is(err, transport.ErrEmptyRemoteRepository), errors.Is(err, git.NoMatchingRefSpecError{}):
		return plumbing.ZeroHash, nil
	default:
		return plumbing.ZeroHash, s.remoteErr("fetching from", err)
	}
	ref, err := s.repo.Storer.Reference(trackingRef)
	if err != nil {
		return plumbing.ZeroHash, err
	}
	return ref.Hash(), nil
}

// push moves the remote's main from old (zero: absent) to commit, as a
// fast-forward only: the remote ref must still be old.
func (s *Store) push(ctx context.Context, old, commit plumbing.Hash) error {
	dst := plumbing.NewBranchReferenceName(Branch)
	o := &git.PushOptions{
		RemoteName: s.remote.Config().Name,
		RefSpecs:   []config.RefSpec{config.RefSpec(commit.String() + ":" + dst.String())},
		Auth:       s.remoteCfg.Auth,
	}
	if !old.IsZero() {
		o.RequireRemoteRefs = []config.RefSpec{config.RefSpec(old.String() + ":" + dst.String())}
	}
	ctx, cancel := context.WithTimeout(ctx, RemoteTimeout)
	defer cancel()
	err := s.remote.PushContext(ctx, o)
	if errors.Is(err, git.NoErrAlreadyUpToDate) {
		return nil
	}
	return err
}

// publish puts commit (a child of head) on the remote. moved reports that
// the remote's main is no longer head: the local branch then already
// follows it and the change must be recomputed.
func (s *Store) publish(ctx context.Context, head, commit plumbing.Hash) (moved bool, err error) {
	perr := s.push(ctx, head, commit)
	if perr == nil {
		return false, nil
	}
	// Why did it fail? Ask the remote: a rejection because someone else
	// pushed first, a lost answer to a push that did land, or an outage.
	remote, err := s.fetch(ctx)
	if err != nil {
		return false, err
	}
	switch remote {
	case commit:
		return false, nil
	case head:
		return false, s.remoteErr("pushing to", perr)
	}
	if remote.IsZero() {
		return false, s.remoteErr("pushing to", perr)
	}
	return true, s.setLocal(remote)
}

// setLocal points the local branch at h, whatever it pointed at (the
// remote is the truth), with compare-and-swap against other processes
// sharing the repository.
func (s *Store) setLocal(h plumbing.Hash) error {
	for attempt := 0; attempt < MaxRetries; attempt++ {
		cur, err := s.Head()
		if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
			return err
		}
		if cur == h {
			return nil
		}
		err = s.casBranch(cur, h)
		if err == nil {
			return s.syncRef()
		}
		if !isConcurrent(err) {
			return err
		}
	}
	return ErrConflict
}

// catchUp moves the local branch to h unless it already contains h.
func (s *Store) catchUp(h plumbing.Hash) error {
	if s.Contains(h) {
		return nil
	}
	return s.setLocal(h)
}

// attachRemote makes the remote's main and the local one agree at
// start-up: the local branch takes the remote's; local commits the remote
// lacks are pushed when that is a fast-forward (the first start after a
// remote was configured), and refused otherwise.
func (s *Store) attachRemote(ctx context.Context, r Remote) error {
	s.remoteCfg = r
	s.remote = git.NewRemote(s.repo.Storer, &config.RemoteConfig{Name: "origin", URLs: []string{r.URL}})
	remote, err := s.fetch(ctx)
	if err != nil {
		return err
	}
	local, err := s.Head()
	if errors.Is(err, plumbing.ErrReferenceNotFound) {
		local, err = plumbing.ZeroHash, nil
	}
	if err != nil {
		return err
	}
	switch {
	case local == remote:
		return nil
	case local.IsZero():
		return s.setLocal(remote)
	case remote.IsZero():
		if err := s.push(ctx, plumbing.ZeroHash, local); err != nil {
			return s.remoteErr("pushing to", err)
		}
		return nil
	}
	if ok, err := isAncestor(s.repo, local, remote); err != nil {
		return err
	} else if ok {
		return s.setLocal(remote) // the remote moved on while keel was down
	}
	if ok, err := isAncestor(s.repo, remote, local); err != nil {
		return err
	} else if ok {
		if err := s.push(ctx, remote, local); err != nil {
			return s.remoteErr("pushing to", err)
		}
		return nil
	}
	return fmt.Errorf("%w: %s main is %s, local %s main is %s, and neither contains the other. "+
		"To make the remote the truth, move %s aside (keel then starts from the remote); "+
		"to keep the local history, push it to the remote yourself (git -C %s push --force %s main)",
		ErrDiverged, RedactURL(r.URL), remote.String()[:12], s.dir, local.String()[:12], s.dir, s.dir, RedactURL(r.URL))
}

// Reaches tells whether commit is from or one of its ancestors (false
// when the store lacks either).
func (s *Store) Reaches(from, commit plumbing.Hash) bool {
	if commit == from {
		return true
	}
	ok, err := isAncestor(s.repo, commit, from)
	return err == nil && ok
}

func isAncestor(repo *git.Repository, a, b plumbing.Hash) (bool, error) {
	ca, err := repo.CommitObject(a)
	if err != nil {
		return false, err
	}
	cb, err := repo.CommitObject(b)
	if err != nil {
		return false, err
	}
	return ca.IsAncestor(cb)
}

// Sync follows the remote: it fetches, points the local branch at the
// remote's main (a fast-forward, or a reset when the remote's history was
// rewritten) and notifies subscribers when it moved. Without a remote it
// does nothing. A remote without main gets the local one pushed back.
func (s *Store) Sync(ctx context.Context) error {
	if s.remote == nil {
		return nil
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	remote, err := s.fetch(ctx)
	if err != nil {
		return err
	}
	local, err := s.Head()
	if err != nil && !errors.Is(err, plumbing.ErrReferenceNotFound) {
		return err
	}
	if remote == local {
		return nil
	}
	if remote.IsZero() {
		if err := s.push(ctx, plumbing.ZeroHash, local); err != nil {
			return s.remoteErr("pushing to", err)
		}
		return nil
	}
	if err := s.setLocal(remote); err != nil {
		return err
	}
	s.notify(remote)
	return nil
}

// HasRemote reports whether a Git server is configured.
func (s *Store) HasRemote() bool { return s.remote != nil }

// Ping reports whether the repository is readable and, with a remote,
// whether the Git server answers: a listing of its refs, the cheapest
// exchange that proves the server and the credentials work (no fetch).
// It is keel's readiness check of Git.
func (s *Store) Ping(ctx context.Context) error {
	if _, err := s.Head(); err != nil {
		return fmt.Errorf("reading %s: %w", s.dir, err)
	}
	if s.remote == nil {
		return nil
	}
	_, err := s.remote.ListContext(ctx, &git.ListOptions{Auth: s.remoteCfg.Auth})
	if err != nil && !errors.Is(err, transport.ErrEmptyRemoteRepository) {
		return s.remoteErr("listing", err)
	}
	return nil
}

// Contains reports whether h is on the local branch: its tip or one of
// its ancestors. A commit not in the local repository is not.
func (s *Store) Contains(h plumbing.Hash) bool {
	head, err := s.Head()
	if err != nil {
		return false
	}
	if head == h {
		return true
	}
	ok, err := isAncestor(s.repo, h, head)
	return err == nil && ok
}
