package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// When another replica applied a folder since this process did (the
// inventory names a revision this process did not apply), this process's
// record of what it applied is stale: its next change compares every
// object and restores one deleted meanwhile.
func TestChangeAfterAnotherReplicaComparesEverything(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("two-replicas", 1)
	extra := func() { f.write(st, renderedSecret(st, st.Cluster.StackID+"-untouched")...) }
	extra()
	f.rec.Sync(ctx)

	other, err := New(f.store, env.Client, newSink(), f.rec.o)
	if err != nil {
		t.Fatal(err)
	}
	st.NodeGroups[1].NodeCount = 2
	extra()
	other.Sync(ctx)
	secret := deleteLive(t, st.Cluster.StackID+"-untouched")

	st.NodeGroups[1].NodeCount = 3
	extra()
	f.rec.Sync(ctx)
	if got := workerReplicas(t, st.Cluster.StackID); got != 3 {
		t.Fatalf("worker replicas: %d, want 3", got)
	}
	if err := env.Client.Get(ctx, secret, &corev1.Secret{}); err != nil {
		t.Fatalf("the Secret deleted after another replica's apply was not restored: %v", err)
	}
}
