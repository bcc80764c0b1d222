package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Writes carrying an older resourceVersion conflict: an update, and the
// strategic merge with optimistic lock Cluster API syncs Node labels with.
func TestStaleWriteConflicts(t *testing.T) {
	for name, write := range map[string]func(c client.Client, stale *corev1.Node) error{
		"update": func(c client.Client, stale *corev1.Node) error {
			stale.Labels = map[string]string{"a": "b"}
			return c.Update(testContext(t), stale)
		},
		"strategic merge with optimistic lock": func(c client.Client, stale *corev1.Node) error {
			orig := stale.DeepCopy()
			stale.Labels = map[string]string{"a": "b"}
			return c.Patch(testContext(t), stale, client.StrategicMergeFrom(orig, client.MergeFromWithOptimisticLock{}))
		},
		"merge with optimistic lock": func(c client.Client, stale *corev1.Node) error {
			orig := stale.DeepCopy()
			stale.Labels = map[string]string{"a": "b"}
			return c.Patch(testContext(t), stale, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}))
		},
	} {
		t.Run(name, func(t *testing.T) {
			ctx, c := testContext(t), newServer(t).client(t)
			node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1"}}
			if err := c.Create(ctx, node); err != nil {
				t.Fatal(err)
			}
			stale := node.DeepCopy()
			node.Annotations = map[string]string{"x": "y"}
			if err := c.Update(ctx, node); err != nil {
				t.Fatal(err)
			}
			if err := write(c, stale); !apierrors.IsConflict(err) {
				t.Fatalf("want Conflict, got %v", err)
			}
		})
	}
}
