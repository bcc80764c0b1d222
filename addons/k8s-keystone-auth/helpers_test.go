package keystoneauth

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
)

var defaults = Params{Tag: "v1.29.0", ProjectID: "0a3c5e7f9b1d4f6a8c0e2a4c6e8a0c2e"}

func render(t *testing.T, p Params) []*unstructured.Unstructured {
	t.Helper()
	objs, err := Manifests(p)
	if err != nil {
		t.Fatal(err)
	}
	return objs
}

// find is the object of kind and name, or fails the test.
func find(t *testing.T, objs []*unstructured.Unstructured, kind, name string) *unstructured.Unstructured {
	t.Helper()
	for _, o := range objs {
		if o.GetKind() == kind && o.GetName() == name {
			return o
		}
	}
	t.Fatalf("no %s %s", kind, name)
	return nil
}

// typed converts a rendered object into its Go type.
func typed[T any](t *testing.T, o *unstructured.Unstructured) *T {
	t.Helper()
	out := new(T)
	if err := runtime.DefaultUnstructuredConverter.FromUnstructuredWithValidation(o.Object, out, true); err != nil {
		t.Fatalf("%s %s: %v", o.GetKind(), o.GetName(), err)
	}
	return out
}

func daemonSetOf(t *testing.T, p Params) *appsv1.DaemonSet {
	t.Helper()
	return typed[appsv1.DaemonSet](t, find(t, render(t, p), "DaemonSet", Name))
}

// flag is the value after name in args, or "".
func flag(args []string, name string) string {
	for i, a := range args {
		if a == name && i+1 < len(args) {
			return args[i+1]
		}
	}
	return ""
}
