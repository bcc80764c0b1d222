package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestNamespaceDeleteDeletesContents(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: "addons"}}
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "addons"}}
	for _, o := range []client.Object{ns, cm} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.Delete(ctx, ns); err != nil {
		t.Fatal(err)
	}
	for _, o := range []client.Object{cm, ns} {
		if err := c.Get(ctx, client.ObjectKeyFromObject(o), o); !apierrors.IsNotFound(err) {
			t.Fatalf("%s after its namespace's deletion: want NotFound, got %v", o.GetName(), err)
		}
	}
	// Then, as on a real server, nothing is created in a missing namespace.
	if err := c.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "cm", Namespace: "addons"}}); !apierrors.IsNotFound(err) {
		t.Fatalf("create in a missing namespace: want NotFound, got %v", err)
	}
}
