package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Deleting an object with finalizers only marks it; removing the last
// finalizer completes the deletion.
func TestFinalizersHoldDeletion(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "f", Namespace: "default", Finalizers: []string{"example.com/hold"}}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), cm); err != nil {
		t.Fatalf("deleted object with a finalizer: %v", err)
	}
	if cm.DeletionTimestamp == nil {
		t.Fatal("no deletionTimestamp on an object being deleted")
	}
	cm.Finalizers = nil
	if err := c.Update(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), cm); !apierrors.IsNotFound(err) {
		t.Fatalf("after removing the last finalizer: want NotFound, got %v", err)
	}
}
