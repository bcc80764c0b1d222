package reconciler

import (
	"errors"
	"time"

	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// metricChangeApplied is the delay an operator feels between an API write
// (or a pushed commit) and the management cluster holding it: from the
// reconciler seeing the folder change to the folder applied. Commits keel
// writes notify the reconciler at once, so for API changes it is the whole
// delay but the commit itself. docs/performance.md reads its percentiles.
var metricChangeApplied = prometheus.NewHistogram(prometheus.HistogramOpts{
	Name:    "keel_change_applied_seconds",
	Help:    "Time from the reconciler seeing a folder change in Git to the change applied to the management cluster.",
	Buckets: []float64{0.01, 0.025, 0.05, 0.1, 0.2, 0.35, 0.5, 0.75, 1, 1.5, 2, 3, 5, 10, 20, 40, 80},
})

func init() { ctrlmetrics.Registry.MustRegister(metricChangeApplied) }

// firstChange keeps the earliest unapplied change of a folder changed again
// before its first change was applied: the delay runs from the first.
func firstChange(pending *retry, now time.Time) time.Time {
	if pending != nil && !pending.changed.IsZero() {
		return pending.changed
	}
	return now
}

// observeChangeApplied records a changed folder's delay once its objects
// are applied: also when the folder then waits (pruned objects' finalizers,
// an upgrade's old templates, a credential's retirement), which is Cluster
// API's rollout, not the apply. Once per change.
// changesApplied counts them per reconciler (the histogram is the
// process's, shared by every reconciler a test runs).
func (r *Reconciler) observeChangeApplied(rt *retry, err error) {
	if rt == nil || rt.changed.IsZero() || (err != nil && !errors.Is(err, errWaiting) && !isRetiring(err)) {
		return
	}
	metricChangeApplied.Observe(time.Since(rt.changed).Seconds())
	rt.changed = time.Time{}
	r.changesApplied++
}
