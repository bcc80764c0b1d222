package reconciler

import (
	"context"
	"testing"

	"github.com/openkeel/keel/intent"
)

// A change committed while a periodic resync is under way is applied with
// the resync's next batch, not after the resync's last folder.
func TestResyncLetsChangesThrough(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	byDir := map[string]*intent.ClusterState{}
	for range 2*defaultWorkers + 1 {
		st := f.cluster("through", 1)
		f.write(st)
		byDir[st.Dir] = st
	}
	f.rec.Sync(ctx)
	f.rec.queueResync(ctx)
	last := f.rec.drift[len(f.rec.drift)-1]
	st := byDir[last]
	if st == nil {
		t.Fatalf("the resync's last folder %s is none of the clusters", last)
	}
	st.NodeGroups[1].NodeCount = 2
	f.write(st)
	sn, _ := f.store.SnapshotHead()
	want, _ := sn.Hash(last)

	f.rec.driftStep(ctx)
	if len(f.rec.drift) == 0 {
		t.Fatalf("the resync of %d clusters ended in one step", len(byDir))
	}
	f.sink.mu.Lock()
	defer f.sink.mu.Unlock()
	if got := f.sink.applied[st.Cluster.UUID]; got != want.String() {
		t.Errorf("after one step of the resync, the change is not applied: revision %s, want %s", got, want)
	}
}
