package clusterapi_test

import (
	"context"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The apiserver converts Cluster API objects through the conversion webhook:
// a Machine created as v1beta2 reads back as v1beta1 with its v1beta2
// reference turned into a v1beta1 one, whose apiVersion comes from the
// OpenStackMachine CRD's contract label (cluster.x-k8s.io/v1beta1: v1beta1).
func TestConversionServesV1beta1(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	if err := env.Client.Create(ctx, testMachine(ns, "converted")); err != nil {
		t.Fatal(err)
	}
	old := &unstructured.Unstructured{}
	old.SetAPIVersion("cluster.x-k8s.io/v1beta1")
	old.SetKind("Machine")
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: ns, Name: "converted"}, old); err != nil {
		t.Fatal(err)
	}
	got, _, _ := unstructured.NestedString(old.Object, "spec", "infrastructureRef", "apiVersion")
	if got != "infrastructure.cluster.x-k8s.io/v1beta1" {
		t.Errorf("v1beta1 spec.infrastructureRef.apiVersion = %q, want infrastructure.cluster.x-k8s.io/v1beta1", got)
	}
}
