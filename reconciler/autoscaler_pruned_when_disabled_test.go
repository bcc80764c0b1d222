package reconciler

import (
	"context"
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	rbacv1 "k8s.io/api/rbac/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// Turning autoscaling off (a commit without auto_scaling_enabled) prunes
// the cluster's cluster-autoscaler and its RBAC from the management
// cluster; the Cluster stays.
func TestAutoscalerPrunedWhenDisabled(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st, autoscaler := applyAutoscaled(t, f, "autoscaled-off")

	st.Cluster.Labels["auto_scaling_enabled"] = "false"
	f.write(st)
	f.eventually("the autoscaler and its Role to be pruned", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, autoscaler, &appsv1.Deployment{})) &&
			apierrors.IsNotFound(env.Client.Get(ctx, autoscaler, &rbacv1.Role{}))
	})
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}, &clusterv1.Cluster{}); err != nil {
		t.Errorf("the Cluster went with the autoscaler: %v", err)
	}
}
