package reconciler

import (
	"context"
	"testing"
)

// A folder changed again while a pass applies it is applied again in the
// same pass, from the newer commit, once the first apply settles.
func TestFolderChangedWhileAppliedIsAppliedAgain(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	st := f.cluster("twice", 1)
	f.write(st)
	f.rec.SyncAll(ctx)
	gate, passDone := f.heldPass(t, st)

	st.NodeGroups[1].NodeCount = 3
	f.write(st)
	want := f.folderRevision(st.Dir)
	// The notice of the commit reaches the pass while the folder is held.
	waitFor(t, "the pass takes the commit in", func() bool { return len(f.rec.notify) == 0 })
	gate.open()
	received(t, passDone, "the pass ends")

	if got := f.sink.appliedRevision(st.Cluster.UUID); got != want {
		t.Fatalf("revision recorded after the pass: %s, want the second change's %s", got, want)
	}
	if got := workerReplicas(t, st.Cluster.StackID); got != 3 {
		t.Fatalf("worker replicas: %d, want 3", got)
	}
	if len(f.rec.pending) != 0 {
		t.Fatalf("pending after the pass: %v", f.rec.pending)
	}
}
