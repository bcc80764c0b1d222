package reconciler

import (
	"sort"
	"strings"

	"github.com/openkeel/keel/intent"
)

// order sorts the folders a pass handles: ClusterClasses first (clusters
// refer to them), then the folders that changed, oldest change first, then
// the rest (retries, and a resync's unchanged folders) by name. With a
// thousand clusters a resync pass takes minutes; a change made meanwhile is
// applied before the unchanged folders, not after them.
func (r *Reconciler) order(units []string) {
	sort.Slice(units, func(i, j int) bool {
		ci, cj := strings.HasPrefix(units[i], intent.ClusterClassesDir+"/"), strings.HasPrefix(units[j], intent.ClusterClassesDir+"/")
		if ci != cj {
			return ci
		}
		ti, tj := r.pending[units[i]].changed, r.pending[units[j]].changed
		if ti.IsZero() != tj.IsZero() {
			return !ti.IsZero()
		}
		if !ti.Equal(tj) {
			return ti.Before(tj)
		}
		return units[i] < units[j]
	})
}

// yields stops a pass before an unchanged folder when a new commit is
// waiting: Run then takes the commit's changes first (Sync), and the pass
// goes on after them, its folders still pending.
func (r *Reconciler) yields(unit string) bool {
	rt := r.pending[unit]
	return rt != nil && rt.changed.IsZero() && r.notify != nil && len(r.notify) > 0
}
