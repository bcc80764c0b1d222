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

// maxCommitsRead bounds the commits changedSince reads per pass, to date
// changes and find the folders created and removed meanwhile. Each is read
// once, by the first pass after it; a pass is rarely behind by more than a
// few hundred (docs/performance.md).
const maxCommitsRead = 1024

// changedSince is, for each changed folder, when the first commit after
// old that changed it was written (gitstore's WrittenAt): while the
// reconciler applies the folders of one pass, the commits of the next wait,
// and that wait is part of the delay. A commit this process neither wrote
// nor fetched as the newest of a push takes the time of the next commit it
// did. Past maxCommitsRead commits (or a commit unreadable), folders not
// found changed take the time of the oldest commit read; with no old
// commit the time is now.
//
// The folders are units and those the commits created and removed
// meanwhile, which units (a diff of old with sn) cannot show. left is the
// UUID of each cluster no longer in sn (left_before_applied.go).
func (r *Reconciler) changedSince(old, sn *gitstore.Snapshot, units map[string]bool, now time.Time) (since map[string]time.Time, left map[string]string) {
	since, left = make(map[string]time.Time, len(units)), map[string]string{}
	fallback := now
	if old != nil {
		fallback = r.readCommits(old, sn, units, now, since, left)
	}
	for u := range units {
		if since[u].IsZero() {
			since[u] = fallback
		}
		if !sn.Exists(u) { // removed: readCommits adds only the others
			left[u] = clusterUUID(u, old)
		}
	}
	return since, left
}

// readCommits walks the commits after old, oldest first: it dates the
// folders each changed and adds those it created that sn no longer has. It
// returns the time of folders found in no commit read: the newest's when
// the walk reached old (a single commit is not diffed again: its diff is
// units), else the oldest read.
func (r *Reconciler) readCommits(old, sn *gitstore.Snapshot, units map[string]bool, now time.Time, since map[string]time.Time, left map[string]string) time.Time {
	chain, times, complete := r.commitsSince(old, sn, now)
	n := len(times)
	switch {
	case n == 0:
		return now
	case complete && n == 1:
		return times[0]
	}
	for i := n - 1; i >= 0; i-- {
		paths, err := gitstore.ChangedPaths(chain[i+1], chain[i])
		if err != nil {
			return times[n-1]
		}
		for _, p := range paths {
			u, ok := unitOf(p)
			if !ok || !since[u].IsZero() {
				continue
			}
			if units[u] {
				since[u] = times[i]
			} else if !sn.Exists(u) { // created and removed meanwhile
				since[u], left[u] = times[i], clusterUUID(u, chain[i], chain[i+1])
			}
		}
	}
	if complete {
		return times[0]
	}
	return times[n-1]
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
		if len(times) == maxCommitsRead {
			return append(chain, next), times, false
		}
		sn = next
	}
}
