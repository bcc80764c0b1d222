package reconciler

import (
	"context"
	"testing"
)

// A commit written while a pass applies a slow folder is applied as a
// worker frees, not after the pass: the pass takes it in (take_commits.go).
func TestCommitDuringAPassIsTakenIn(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	slow, other := f.cluster("slow", 1), f.cluster("other", 1)
	f.write(slow)
	f.write(other)
	f.rec.SyncAll(ctx)
	gate, passDone := f.heldPass(t, slow)

	other.NodeGroups[1].NodeCount = 3
	f.write(other)
	want := f.folderRevision(other.Dir)
	waitFor(t, "the other cluster applied while the slow one is", func() bool {
		return f.sink.appliedRevision(other.Cluster.UUID) == want
	})
	select {
	case <-passDone:
		t.Fatal("the pass ended before the slow folder was released")
	default:
	}
	gate.open()
	received(t, passDone, "the pass ends")
	if got := workerReplicas(t, other.Cluster.StackID); got != 3 {
		t.Fatalf("the other cluster's worker replicas: %d, want 3", got)
	}
}
