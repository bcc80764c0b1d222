package gitstore

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/go-git/go-git/v5/storage"
)

// The branch is moved as Git moves a ref, never in place: go-git truncates
// the ref file and then writes it, and a keel killed between the two left
// an empty file, which reads as no branch at all, so that the next start
// initialised a new root commit and the history fell off the branch
// (TestCrashConsistency caught it). Here the new value is written to
// refs/heads/<branch>.lock, created exclusively (the lock `git push` and
// every git command take too), flushed, compared with the expected old
// value and renamed over the ref: a kill leaves the old value or the new.

const (
	// lockWait is how long a ref update waits for another holder of the
	// lock (a `git push` being received) before it fails.
	lockWait = 10 * time.Second
	// staleLock is the age from which a lock is taken to be left by a
	// process that died holding it (Git holds one for milliseconds).
	staleLock = 5 * time.Second
)

// errEmptyRef: the branch's ref file exists but is empty or unreadable, the
// trace of an update interrupted by an older keel.
var errEmptyRef = errors.New("the branch's ref file is empty")

func (s *Store) refPath() string { return filepath.Join(s.dir, filepath.FromSlash(s.ref.String())) }

// casBranch moves the branch to h if it is at old (zero: the branch does
// not exist yet); storage.ErrReferenceHasChanged when it is not.
func (s *Store) casBranch(old, h plumbing.Hash) error {
	s.refMu.Lock()
	defer s.refMu.Unlock()
	lock := s.refPath() + ".lock"
	if err := os.MkdirAll(filepath.Dir(lock), 0o755); err != nil {
		return err
	}
	f, err := createLock(lock)
	if err != nil {
		return err
	}
	held := true
	defer func() {
		if held {
			os.Remove(lock)
		}
	}()
	_, werr := f.WriteString(h.String() + "\n")
	if err := errors.Join(werr, f.Sync(), f.Close()); err != nil {
		return fmt.Errorf("writing %s: %w", lock, err)
	}
	cur, err := s.repo.Storer.Reference(s.ref)
	switch {
	case errors.Is(err, plumbing.ErrReferenceNotFound):
		if !old.IsZero() {
			return storage.ErrReferenceHasChanged
		}
	case err != nil:
		return err
	case cur.Hash() != old:
		return storage.ErrReferenceHasChanged
	}
	if err := os.Rename(lock, s.refPath()); err != nil {
		return fmt.Errorf("moving %s: %w", s.ref, err)
	}
	held = false
	return nil
}

// createLock creates the lock file exclusively, waiting for a live holder
// and taking over a stale one.
func createLock(lock string) (*os.File, error) {
	deadline := time.Now().Add(lockWait)
	for {
		f, err := os.OpenFile(lock, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil || !errors.Is(err, os.ErrExist) {
			return f, err
		}
		if fi, serr := os.Stat(lock); serr == nil && time.Since(fi.ModTime()) > staleLock {
			os.Remove(lock)
			continue
		}
		if time.Now().After(deadline) {
			return nil, fmt.Errorf("%s is held by another process: %w", lock, storage.ErrReferenceHasChanged)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// checkRefFile refuses a branch whose ref file is present but empty: Open
// would otherwise take the branch for missing and start a new history.
func (s *Store) checkRefFile() error {
	b, err := os.ReadFile(s.refPath())
	if err != nil || len(b) > 0 {
		return nil // missing (packed, or a new repository) or written
	}
	return fmt.Errorf("%s: %w (an update interrupted by a crash): point it at the last commit, `rm %s && git --git-dir %s update-ref %s <commit>` (`git --git-dir %s fsck --lost-found` lists the candidates)", s.refPath(), errEmptyRef, s.refPath(), s.dir, s.ref, s.dir)
}
