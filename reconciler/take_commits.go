package reconciler

import (
	"context"
	"slices"
	"time"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/gitstore"
)

// A pass over clusters takes in the commits written while it runs: as a
// worker frees, the folders they changed are queued before the pass's
// unchanged ones. Before, they waited for the whole pass: a burst of API
// changes was applied in waves, each waiting for the slowest apply of the
// wave before (issue 30). A folder changed again while it is applied is
// queued again once that apply settles, from the snapshot then current.
//
// A changed ClusterClass ends the pass instead: the clusters of the next
// pass may refer to it, and it must be applied before them (process). So
// does a pass over ClusterClasses, before its next folder (yields).

// outcome is one folder's reconcile, for runUnits to settle.
type outcome struct {
	unit    string
	done    bool
	err     error
	applied time.Time
}

// pass is runUnits' state: the snapshot folders start from, the folders
// queued, those in flight, and those changed while in flight (again, with
// their first change).
type pass struct {
	sn       *gitstore.Snapshot
	queue    []string
	inflight map[string]bool
	again    map[string]time.Time
	busy     int
	results  chan outcome
	stopped  bool
}

// runUnits reconciles units, up to Workers at once, and settles each
// outcome here, so that only this goroutine touches pending. With
// takeCommits it takes in the commits written meanwhile; without, it stops
// starting folders when a commit waits (yields). It also stops when ctx
// ends, and reports whether it started every folder it was given.
func (r *Reconciler) runUnits(ctx context.Context, sn *gitstore.Snapshot, units []string, takeCommits bool) bool {
	p := &pass{sn: sn, queue: units, inflight: map[string]bool{}, again: map[string]time.Time{}, results: make(chan outcome)}
	all := true
	for {
		if takeCommits && !p.stopped && r.commitWaiting() {
			r.takeCommits(p)
		}
		for len(p.queue) > 0 && p.busy < r.o.Workers && !p.stopped {
			if ctx.Err() != nil || (!takeCommits && r.yields(p.queue[0])) {
				p.stopped = true
				break
			}
			r.start(ctx, p, p.queue[0])
			p.queue = p.queue[1:]
		}
		all = all && !p.stopped
		if p.busy == 0 {
			return all
		}
		r.await(p, takeCommits)
	}
}

// await settles the next outcome or, taking commits, takes in the next
// commit if it comes first.
func (r *Reconciler) await(p *pass, takeCommits bool) {
	var notify <-chan plumbing.Hash
	if takeCommits && !p.stopped {
		notify = r.notify
	}
	select {
	case o := <-p.results:
		r.finish(p, o)
	case <-notify:
		r.takeCommits(p)
	}
}

// commitWaiting takes a waiting commit's notice, if any.
func (r *Reconciler) commitWaiting() bool {
	select {
	case <-r.notify:
		return true
	default:
		return false
	}
}

// start reconciles unit in a goroutine of its own.
func (r *Reconciler) start(ctx context.Context, p *pass, unit string) {
	p.busy++
	p.inflight[unit] = true
	sn, full := p.sn, r.pending[unit].full()
	go func() {
		var applied time.Time
		done, err := r.reconcileUnit(ctx, sn, unit, full, &applied)
		p.results <- outcome{unit, done, err, applied}
	}()
}

// finish settles one outcome and queues its folder again if it changed
// meanwhile.
func (r *Reconciler) finish(p *pass, o outcome) {
	r.settle(o.unit, o.done, o.err, o.applied)
	p.busy--
	delete(p.inflight, o.unit)
	t, changed := p.again[o.unit]
	if !changed {
		return
	}
	delete(p.again, o.unit)
	r.markChanged(map[string]time.Time{o.unit: t})
	if !p.stopped {
		p.queue = append(p.queue, o.unit)
		r.order(p.queue)
	}
}

// takeCommits marks the folders changed since the synced commit pending,
// and queues them: those not in flight at once, before the unchanged
// folders (order), those in flight once they settle (finish). A changed
// ClusterClass stops the pass and asks Run for the next (kick).
func (r *Reconciler) takeCommits(p *pass) {
	sn, since, ok := r.catchUp()
	if !ok || len(since) == 0 {
		return
	}
	p.sn = sn
	for u, t := range since {
		if p.inflight[u] {
			p.again[u] = firstOf(p.again[u], t)
			delete(since, u)
		} else if isClassUnit(u) {
			p.stopped = true
		}
	}
	r.markChanged(since)
	if p.stopped {
		r.kickRun()
		return
	}
	for u := range since {
		if !slices.Contains(p.queue, u) {
			p.queue = append(p.queue, u)
		}
	}
	r.order(p.queue)
}

// firstOf is the earlier of two times, the zero time being none.
func firstOf(a, b time.Time) time.Time {
	if a.IsZero() || (!b.IsZero() && b.Before(a)) {
		return b
	}
	return a
}

// kickRun asks Run for another pass as soon as this one ends.
func (r *Reconciler) kickRun() {
	select {
	case r.kick <- struct{}{}:
	default:
	}
}
