package reconciler

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/kube"
)

// A cluster's cluster-autoscaler (auto_scaling_enabled) is applied to the
// management cluster with it, and deleted with the Cluster when the
// cluster leaves Git, not after: while Cluster API still deletes the
// machines, the autoscaler is already gone (its ServiceAccount and RBAC
// stay until the Cluster is, like the other objects).
func TestTeardownDeletesAutoscalerWithCluster(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st, autoscaler := applyAutoscaled(t, f, "autoscaled")
	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	release := holdCluster(t, key)

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	f.eventually("the autoscaler Deployment to be deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, autoscaler, &appsv1.Deployment{}))
	})
	var c clusterv1.Cluster
	if err := env.Client.Get(ctx, key, &c); err != nil || c.DeletionTimestamp == nil {
		t.Fatalf("the Cluster is not being deleted beside the autoscaler (%v)", err)
	}
	if err := env.Client.Get(ctx, autoscaler, &corev1.ServiceAccount{}); err != nil {
		t.Errorf("the autoscaler's ServiceAccount went before the Cluster: %v", err)
	}

	release()
	f.eventually("the autoscaler's ServiceAccount to be deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, autoscaler, &corev1.ServiceAccount{}))
	})
}
