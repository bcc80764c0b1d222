package reconciler

import (
	"context"
	"testing"
)

// keel_change_applied_seconds counts one delay per applied change: a
// create and a resize each add one; a full resync that re-applies the same
// revision adds none (it is not a change an operator waits for).
func TestChangeAppliedDelayRecordedOncePerChange(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	samples := func() int {
		f.rec.mu.Lock()
		defer f.rec.mu.Unlock()
		return f.rec.changesApplied
	}
	// The first cluster also writes its ClusterClass's folder: a change
	// of its own, applied once.
	f.write(f.cluster("first", 1))
	f.rec.Sync(ctx)
	if got := samples(); got != 2 {
		t.Fatalf("after the first create (cluster and class): %d delays recorded, want 2", got)
	}
	before := samples()
	st := f.cluster("latency", 1)
	f.write(st)
	f.rec.Sync(ctx)
	if got := samples() - before; got != 1 {
		t.Fatalf("after a create's apply: %d delays recorded, want 1", got)
	}
	st.NodeGroups[1].NodeCount = 3
	f.write(st)
	f.rec.Sync(ctx)
	f.rec.SyncAll(ctx)
	if got := samples() - before; got != 2 {
		t.Fatalf("after a resize and a resync: %d delays recorded, want 2", got)
	}
}
