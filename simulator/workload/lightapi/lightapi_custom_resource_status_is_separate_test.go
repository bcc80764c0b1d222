package lightapi

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A CRD declaring the status subresource gets the same separation as the
// built-ins: its objects' status changes only through /status.
func TestCustomResourceStatusIsSeparate(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	crd := widgetCRD()
	crd.Spec.Versions[0].Subresources = &apiextensionsv1.CustomResourceSubresources{Status: &apiextensionsv1.CustomResourceSubresourceStatus{}}
	if err := c.Create(ctx, crd); err != nil {
		t.Fatal(err)
	}
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "default"}, "spec": map[string]any{"size": int64(1)}}}
	if err := c.Create(ctx, w); err != nil {
		t.Fatal(err)
	}
	w.Object["status"] = map[string]any{"ready": true}
	if err := c.Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	if _, found, _ := unstructured.NestedBool(w.Object, "status", "ready"); found {
		t.Fatalf("status written through the object: %v", w.Object["status"])
	}
	w.Object["status"] = map[string]any{"ready": true}
	if err := c.Status().Update(ctx, w); err != nil {
		t.Fatal(err)
	}
	got := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}}
	if err := c.Get(ctx, client.ObjectKeyFromObject(w), got); err != nil {
		t.Fatal(err)
	}
	if ready, _, _ := unstructured.NestedBool(got.Object, "status", "ready"); !ready || got.GetGeneration() != 1 {
		t.Fatalf("after a status update: status %v, generation %d", got.Object["status"], got.GetGeneration())
	}
}
