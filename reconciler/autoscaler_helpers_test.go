package reconciler

import (
	"context"
	"maps"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// applyAutoscaled commits and applies a cluster with auto_scaling_enabled
// and returns it with the key of its cluster-autoscaler's objects, which
// it checks were applied.
func applyAutoscaled(t *testing.T, f *fixture, name string) (*intent.ClusterState, client.ObjectKey) {
	t.Helper()
	st := f.cluster(name, 1)
	st.Cluster.Labels = maps.Clone(st.Cluster.Labels)
	st.Cluster.Labels["auto_scaling_enabled"] = "true"
	f.write(st)
	f.rec.Sync(context.Background())
	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID + "-autoscaler"}
	if err := env.Client.Get(context.Background(), key, &appsv1.Deployment{}); err != nil {
		t.Fatalf("the autoscaler was not applied: %v (errors %v)", err, f.sink.errors)
	}
	return st, key
}

// holdCluster stands in for Cluster API: a finalizer keeps the Cluster
// being deleted until the returned release is called.
func holdCluster(t *testing.T, key client.ObjectKey) (release func()) {
	t.Helper()
	ctx := context.Background()
	var cl clusterv1.Cluster
	if err := env.Client.Get(ctx, key, &cl); err != nil {
		t.Fatal(err)
	}
	cl.Finalizers = append(cl.Finalizers, "test.keel.openkeel.io/capi")
	if err := env.Client.Update(ctx, &cl); err != nil {
		t.Fatal(err)
	}
	return func() {
		t.Helper()
		if err := env.Client.Get(ctx, key, &cl); err != nil {
			t.Fatal(err)
		}
		cl.Finalizers = nil
		if err := env.Client.Update(ctx, &cl); err != nil {
			t.Fatal(err)
		}
	}
}
