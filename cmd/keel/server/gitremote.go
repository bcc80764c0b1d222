package server

import (
	"context"
	"log/slog"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/review"
)

// DefaultGitRemoteInterval is how often keel fetches the Git remote when no
// interval is given.
const DefaultGitRemoteInterval = 30 * time.Second

// followRemote fetches the Git remote every interval, and at once when the
// webhook asks (now), so that commits made on the Git server (a merged
// pull request, a revert) reach the local mirror; Store.Sync then notifies
// the reconciler.
func followRemote(ctx context.Context, store *gitstore.Store, interval time.Duration, now <-chan struct{}, log *slog.Logger) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	out := outage{log: log, level: slog.LevelWarn,
		failing: "following the Git remote; retrying every interval", recovered: "the Git remote is reachable again"}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-now:
		}
		out.report(ctx, store.Sync(ctx))
	}
}

// followReviews asks the forge every interval about the pull requests keel
// opened (review.Mode.Poll); a merge triggers a fetch at once, so that
// the merged change is applied without waiting for the next fetch.
func followReviews(ctx context.Context, rv *review.Mode, interval time.Duration, syncNow chan<- struct{}, log *slog.Logger) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	// At once on start: the open reviews (from before a restart) show and
	// block conflicting changes without waiting for the first tick.
	first := make(chan time.Time, 1)
	first <- time.Time{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-first:
		case <-t.C:
		}
		if rv.Poll(ctx, log) {
			select {
			case syncNow <- struct{}{}:
			default: // a sync is already pending
			}
		}
	}
}
