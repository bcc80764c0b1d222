// Package write is the API's write path without HTTP: a change is computed
// on the snapshot it commits onto, its documents checked, then proposed to
// review or committed to main, and the read model brought up to date
// before the caller answers. The slow part of a write is prepared on HEAD
// outside the repository's lock (Prepare), the commit redoes under the
// lock only what changed since.
//
// It imports no HTTP framework (internal/layering): the API's handlers
// turn a request into a Caller and a change, and the answer back into HTTP.
package write

import (
	"context"
	"errors"
	"log/slog"
	"net/http"
	"runtime"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/schemas"
)

// Reviewer is review mode as the write path sees it: "commit or propose".
// review.Mode implements it (pull requests, their checks and the webhook
// live in package review, which the API does not import).
type Reviewer interface {
	// Propose sends the change fn makes to a pull request when the site's
	// review policy (cat) covers it (proposed true); else it returns the
	// object the change is about, which the caller commits to main and
	// then reports to Committed. Its errors carry their HTTP status.
	// requestID names the request, request is its method and path.
	Propose(ctx context.Context, requestID, request string, cat *schemas.Catalogue, fn gitstore.UpdateFunc) (proposed bool, object string, err error)
	// Committed tells that a change of object went to main.
	Committed(object string)
	// Reason is the status_reason of an object with a review ("" without).
	Reason(object string) string
}

// Config wires the write path.
type Config struct {
	Store *gitstore.Store
	DB    *readmodel.DB
	// Review, when set, may send a change to a pull request instead.
	Review Reviewer
	// Site is the label catalogue of the repository's HEAD. Its error (a
	// site.cue that does not load) refuses every write, not only those
	// that validate labels: the repository's rules are unknown until an
	// operator fixes it.
	Site func() (*schemas.Catalogue, error)
	// Check validates the documents a change writes onto sn.
	Check func(sn *gitstore.Snapshot, changes []gitstore.Change) error
}

// Path is the write path of one API server.
type Path struct {
	cfg Config
	// slots bounds the preparations doing CPU work at once (Slot).
	slots chan struct{}
}

// New builds the write path.
func New(cfg Config) *Path {
	return &Path{cfg: cfg, slots: make(chan struct{}, runtime.GOMAXPROCS(0))}
}

// Commit runs one mutation as one commit, once the documents it writes
// pass Check, and brings the read model up to date before it returns, so a
// read right after sees it. In review mode a change the site's policy
// covers goes to a pull request instead (main unchanged).
func (p *Path) Commit(ctx context.Context, who Caller, fn gitstore.UpdateFunc) error {
	cat, err := p.cfg.Site()
	if err != nil {
		return err
	}
	if err := p.catchUp(ctx, who); err != nil {
		return err
	}
	checked := p.checked(fn)
	reviewed := ""
	if p.cfg.Review != nil {
		proposed, object, err := p.cfg.Review.Propose(ctx, who.RequestID, who.Request, cat, checked)
		if err != nil || proposed {
			return SiteFileError(err) // on a review branch: main and the read model unchanged
		}
		reviewed = object
	}
	if err := p.update(ctx, who, checked); err != nil {
		return err
	}
	if reviewed != "" {
		p.cfg.Review.Committed(reviewed)
	}
	return p.sync(ctx)
}

// checked is fn whose commit passes Check.
func (p *Path) checked(fn gitstore.UpdateFunc) gitstore.UpdateFunc {
	return func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		cm, err := fn(sn)
		if err != nil || cm == nil {
			return cm, err
		}
		if err := p.cfg.Check(sn, cm.Changes); err != nil {
			return nil, err
		}
		return cm, nil
	}
}

// catchUp fetches before a change when the read model shows a commit this
// replica's repository lacks (another replica wrote it): the caller chose
// what to change from the read model, and a change computed on an older
// HEAD could find nothing to do (a delete answered 204 with no commit) or
// refuse what the caller sees. A change that does commit is safe without
// it (the push would find the remote moved and recompute); this is for
// the answers that commit nothing. One database read, no network, when
// the repository is current.
func (p *Path) catchUp(ctx context.Context, who Caller) error {
	st := p.cfg.Store
	if !st.HasRemote() {
		return nil
	}
	rev, err := p.cfg.DB.ProjectedRevision(ctx)
	if err != nil || rev == "" || st.Contains(plumbing.NewHash(rev)) {
		return err
	}
	return remoteUnavailable(who, "fetching from the Git remote failed", st.Sync(ctx))
}

// update commits to main under the repository's lock.
func (p *Path) update(ctx context.Context, who Caller, fn gitstore.UpdateFunc) error {
	_, err := p.cfg.Store.Update(ctx, fn)
	if errors.Is(err, gitstore.ErrRemoteUnavailable) {
		return remoteUnavailable(who, "the Git remote did not take the commit", err)
	}
	// A cluster is compiled with the site file of the tree it is committed
	// onto, which may be broken even when HEAD's was not.
	return SiteFileError(err)
}

// remoteUnavailable is err as the API answers a Git server that failed:
// nothing was acknowledged, so the client may retry as is.
func remoteUnavailable(who Caller, msg string, err error) error {
	if !errors.Is(err, gitstore.ErrRemoteUnavailable) {
		return err
	}
	who.Logger().Error(msg, "err", err)
	return &Error{Status: http.StatusServiceUnavailable, Msg: "The cluster repository's Git server is unavailable. The change was not made; please retry later."}
}

// sync projects the commit made: that must not fail the request. Reading
// the branch while another process (a git push) rewrites it can fail
// transiently, and the projection is idempotent, so it retries.
func (p *Path) sync(ctx context.Context) error {
	var err error
	for attempt := 0; attempt < 20; attempt++ {
		if err = p.cfg.DB.Sync(context.WithoutCancel(ctx), p.cfg.Store); err == nil {
			return nil
		}
		time.Sleep(time.Duration(attempt+1) * 5 * time.Millisecond)
	}
	return err
}

// Prepare is the one way a write prepares before taking the repository's
// lock: fn runs on HEAD as it is, so that the slow part of the write
// (OpenStack lookups, keys, compiling, writing blobs), which depends on
// nothing other writers commit meanwhile, is done outside the lock; the
// commit then finds it cached or returned, and redoes under the lock only
// what changed since. fn's errors are not reported here: the commit
// recomputes everything and reports them.
func (p *Path) Prepare(fn func(sn *gitstore.Snapshot) error) {
	if sn, err := p.cfg.Store.SnapshotHead(); err == nil {
		_ = fn(sn)
	}
}

// PrepareThenCommit is Prepare with fn itself, then Commit of fn: for a
// change whose preparation is computing it once on HEAD (its lookups and
// blobs are then cached for the commit).
func (p *Path) PrepareThenCommit(ctx context.Context, who Caller, fn gitstore.UpdateFunc) error {
	p.Prepare(func(sn *gitstore.Snapshot) error {
		_, err := fn(sn)
		return err
	})
	return p.Commit(ctx, who, fn)
}

// Slot waits for one of GOMAXPROCS slots to do the CPU part of a write's
// preparation before the repository's lock (false: ctx ended first); its
// OpenStack lookups wait outside. Fifty preparations at once only slow
// each other, and they slow the writer holding the lock as much, since Go
// schedules goroutines without priorities: that writer got a fiftieth of
// the CPU, and every create waited for it (BenchmarkClusterCreate,
// clients=50).
func (p *Path) Slot(ctx context.Context) (release func(), ok bool) {
	select {
	case p.slots <- struct{}{}:
		return func() { <-p.slots }, true
	case <-ctx.Done():
		return nil, false
	}
}

// Store is the repository the path commits to (the preparation writes its
// blobs there ahead of the commit).
func (p *Path) Store() *gitstore.Store { return p.cfg.Store }

// Logger is the request's logger.
func (c Caller) Logger() *slog.Logger {
	if c.Log != nil {
		return c.Log
	}
	return slog.Default()
}
