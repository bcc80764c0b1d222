package reconciler

import (
	"errors"
	"time"

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
// did. Past maxCommitsTimed commits (or a commit unreadable), folders not
// found changed take the time of the oldest commit read; with no old
// commit the time is now.
func (r *Reconciler) changedSince(old, sn *gitstore.Snapshot, units map[string]bool, now time.Time) map[string]time.Time {
	since := make(map[string]time.Time, len(units))
	fallback := now
	if old != nil {
		chain, times, complete := r.commitsSince(old, sn, now)
		// Reaching old, a folder no older commit changed was changed by
		// the newest: its diff, which sync has just read whole, is not
		// read again (with a single commit, none is).
		first := 0
		if n := len(times); complete {
			first, fallback = 1, times[0]
		} else if n > 0 {
			fallback = times[n-1]
		}
		for i := len(times) - 1; i >= first && len(since) < len(units); i-- {
			paths, err := gitstore.ChangedPaths(chain[i+1], chain[i])
			if err != nil {
				fallback = times[len(times)-1]
				break
			}
			for _, p := range paths {
				if u, ok := unitOf(p); ok && units[u] && since[u].IsZero() {
					since[u] = times[i]
				}
			}
		}
	}
	for u := range units {
		if since[u].IsZero() {
			since[u] = fallback
		}
	}
	return since
}

// commitsSince walks from head back along first parents to old: the
// commits read, newest first, each followed in chain by its parent's
// snapshot (nil for a root commit), and when each was written; complete
// tells whether the walk reached old.
func (r *Reconciler) commitsSince(old, head *gitstore.Snapshot, now time.Time) (chain []*gitstore.Snapshot, times []time.Time, complete bool) {
	t := now
	for sn := head; ; {
		if at, ok := r.store.WrittenAt(sn.Commit()); ok && at.Before(t) {
			t = at
		}
		chain, times = append(chain, sn), append(times, t)
		parent, ok := sn.Parent()
		switch {
		case !ok:
			return append(chain, nil), times, false
		case parent == old.Commit():
			return append(chain, old), times, true
		}
		next, err := r.store.SnapshotAt(parent)
		if err != nil { // sn cannot be diffed: it stays only as its child's parent
			return chain, times[:len(times)-1], false
		}
		if len(times) == maxCommitsTimed {
			return append(chain, next), times, false
		}
		sn = next
	}
}
