package reconciler

import (
	"errors"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/openkeel/keel/gitstore"
)

// metricChangeApplied is the delay an operator feels between an API write
// (or a pushed commit) and the management cluster holding it: from the
// commit written (or, pushed, fetched) to the folder's objects applied,
// the wait for the reconciler's earlier applies included (changedSince).
// For API changes it is the whole delay but the commit itself.
// docs/performance.md reads its percentiles.
var metricChangeApplied = prometheus.NewHistogram(prometheus.HistogramOpts{
	Name:    "keel_change_applied_seconds",
	Help:    "Time from a commit changing a folder (written by keel or fetched from its Git server) to the folder's objects applied to the management cluster.",
	Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 40, 80},
})

func init() { ctrlmetrics.Registry.MustRegister(metricChangeApplied) }

// firstChange keeps the earliest unapplied change of a folder changed again
// before its first change was applied: the delay runs from the first.
func firstChange(pending *retry, since time.Time) time.Time {
	if pending != nil && !pending.changed.IsZero() {
		return pending.changed
	}
	return since
}

// observeChangeApplied records a changed folder's delay once its objects
// are applied (at applied): also when the folder then waits (pruned
// objects' finalizers, an upgrade's old templates, a credential's
// retirement), which is Cluster API's rollout, not the apply. Once per
// change. The status records that follow the apply are not part of it.
// changesApplied counts them per reconciler (the histogram is the
// process's, shared by every reconciler a test runs).
func (r *Reconciler) observeChangeApplied(rt *retry, err error, applied time.Time) {
	if rt == nil || rt.changed.IsZero() || applied.IsZero() || (err != nil && !errors.Is(err, errWaiting) && !isRetiring(err)) {
		return
	}
	metricChangeApplied.Observe(applied.Sub(rt.changed).Seconds())
	rt.changed = time.Time{}
	r.changesApplied++
}

// maxCommitsTimed bounds the commits changedSince reads per pass.
const maxCommitsTimed = 64

// changedSince is, for each changed folder, when the first commit after
// old that changed it was written (gitstore's WrittenAt): while the
// reconciler applies the folders of one pass, the commits of the next wait,
// and that wait is part of the delay. A commit this process neither wrote
// nor fetched as the newest of a push takes the time of the next commit it
// did; past maxCommitsTimed commits, folders changed earlier take the time
// of the oldest commit read, and with no old commit the time is now.
func (r *Reconciler) changedSince(old, sn *gitstore.Snapshot, units map[string]bool, now time.Time) map[string]time.Time {
	since := make(map[string]time.Time, len(units))
	oldest := now
	if old != nil {
		commits, times := r.commitsSince(old.Commit(), sn.Commit(), now)
		for i := len(commits) - 1; i >= 0 && len(since) < len(units); i-- {
			paths, err := r.commitPaths(commits[i])
			if err != nil {
				break
			}
			for _, p := range paths {
				if u, ok := unitOf(p); ok && units[u] && since[u].IsZero() {
					since[u] = times[i]
				}
			}
		}
		if len(commits) == maxCommitsTimed {
			oldest = times[len(times)-1]
		}
	}
	for u := range units {
		if since[u].IsZero() {
			since[u] = oldest
		}
	}
	return since
}

// commitsSince lists the commits from head back to old (excluded) along
// first parents, newest first, with when each was written.
func (r *Reconciler) commitsSince(old, head plumbing.Hash, now time.Time) ([]plumbing.Hash, []time.Time) {
	var commits []plumbing.Hash
	var times []time.Time
	t := now
	for c := head; c != old && len(commits) < maxCommitsTimed; {
		if at, ok := r.store.WrittenAt(c); ok && at.Before(t) {
			t = at
		}
		commits, times = append(commits, c), append(times, t)
		parent, ok, err := r.store.FirstParent(c)
		if err != nil || !ok {
			break
		}
		c = parent
	}
	return commits, times
}

// commitPaths are the paths the commit c changed from its first parent.
func (r *Reconciler) commitPaths(c plumbing.Hash) ([]string, error) {
	sn, err := r.store.SnapshotAt(c)
	if err != nil {
		return nil, err
	}
	var before *gitstore.Snapshot
	if parent, ok, err := r.store.FirstParent(c); err != nil {
		return nil, err
	} else if ok {
		if before, err = r.store.SnapshotAt(parent); err != nil {
			return nil, err
		}
	}
	return gitstore.ChangedPaths(before, sn)
}
