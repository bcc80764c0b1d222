package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// A change applies only the objects whose rendering changed: an object it
// did not change, deleted behind keel's back, stays deleted until the
// resync, which compares every object (unchanged.go).
func TestChangeAppliesOnlyWhatChanged(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("only-changed", 1)
	f.write(st, renderedSecret(st, st.Cluster.StackID+"-untouched")...)
	f.rec.Sync(ctx)
	secret := deleteLive(t, st.Cluster.StackID+"-untouched")

	st.NodeGroups[1].NodeCount = 3
	f.write(st, renderedSecret(st, st.Cluster.StackID+"-untouched")...)
	f.rec.Sync(ctx)
	if got := workerReplicas(t, st.Cluster.StackID); got != 3 {
		t.Fatalf("worker replicas after the resize: %d, want 3", got)
	}
	if err := env.Client.Get(ctx, secret, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the unchanged Secret was applied by a change (get: %v); only a resync should compare it", err)
	}

	f.rec.SyncAll(ctx)
	if err := env.Client.Get(ctx, secret, &corev1.Secret{}); err != nil {
		t.Fatalf("the resync did not restore the deleted Secret: %v", err)
	}
}

// deleteLive deletes a Secret keel applied, as someone else would.
func deleteLive(t *testing.T, name string) client.ObjectKey {
	t.Helper()
	key := client.ObjectKey{Namespace: kube.Namespace, Name: name}
	s := &corev1.Secret{}
	s.Namespace, s.Name = key.Namespace, key.Name
	if err := env.Client.Delete(context.Background(), s); err != nil {
		t.Fatal(err)
	}
	return key
}
