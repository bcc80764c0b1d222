package reconciler

import (
	"slices"
)

// order sorts the folders a pass handles: ClusterClasses first (clusters
// refer to them), then the folders that changed, oldest change first, then
// the rest (retries, a resync's batch, the start-up pass) by name. With a
// thousand clusters the start-up pass takes minutes; a change made
// meanwhile is applied before the unchanged folders, not after them.
func (r *Reconciler) order(units []string) {
	slices.SortFunc(units, func(a, b string) int {
		if isClassUnit(a) != isClassUnit(b) {
			return unitOrder(a, b)
		}
		ta, tb := r.pending[a].changed, r.pending[b].changed
		if ta.IsZero() != tb.IsZero() {
			if ta.IsZero() {
				return 1
			}
			return -1
		}
		if c := ta.Compare(tb); c != 0 {
			return c
		}
		return unitOrder(a, b)
	})
}

// yields stops a pass over ClusterClasses before an unchanged folder when
// a new commit is waiting: Run then takes the commit's changes first
// (Sync), and the pass goes on after them, its folders still pending. A
// pass over clusters takes the commit in instead (take_commits.go).
func (r *Reconciler) yields(unit string) bool {
	rt := r.pending[unit]
	return rt != nil && rt.changed.IsZero() && r.notify != nil && len(r.notify) > 0
}
