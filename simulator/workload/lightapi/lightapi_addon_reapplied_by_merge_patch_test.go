package lightapi

import (
	"testing"

	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// ClusterResourceSet's Reconcile strategy re-applies an addon manifest by
// getting the object and merge-patching it into the manifest, resource
// version included: the patch nulls what the server set (uid, status),
// which the server keeps.
func TestAddonReappliedByMergePatch(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	manifest := func(plural string) *unstructured.Unstructured {
		crd := widgetCRD()
		crd.Spec.Names.ShortNames = []string{plural}
		m, err := runtime.DefaultUnstructuredConverter.ToUnstructured(crd)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: m}
		u.SetAPIVersion("apiextensions.k8s.io/v1")
		u.SetKind("CustomResourceDefinition")
		delete(u.Object, "status")
		return u
	}
	first := manifest("w")
	if err := c.Create(ctx, first); err != nil {
		t.Fatal(err)
	}
	obj := manifest("wd")
	cur := &unstructured.Unstructured{}
	cur.SetGroupVersionKind(obj.GroupVersionKind())
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), cur); err != nil {
		t.Fatal(err)
	}
	obj.SetResourceVersion(cur.GetResourceVersion())
	if err := c.Patch(ctx, obj, client.MergeFrom(cur.DeepCopy())); err != nil {
		t.Fatal(err)
	}
	got := &apiextensionsv1.CustomResourceDefinition{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(obj), got); err != nil {
		t.Fatal(err)
	}
	if got.Spec.Names.ShortNames[0] != "wd" || string(got.UID) != string(first.GetUID()) || !isTrue(got, apiextensionsv1.Established) {
		t.Fatalf("after re-applying: shortNames %v, uid %s (was %s), conditions %+v", got.Spec.Names.ShortNames, got.UID, first.GetUID(), got.Status.Conditions)
	}
}
