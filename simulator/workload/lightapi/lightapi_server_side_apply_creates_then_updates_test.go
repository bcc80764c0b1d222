package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestServerSideApplyCreatesThenUpdates(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	for _, v := range []string{"1", "2"} {
		ac := corev1ac.ConfigMap("coredns", "kube-system").WithData(map[string]string{"v": v}).WithLabels(map[string]string{"v": v})
		if err := c.Apply(ctx, ac, client.FieldOwner("test"), client.ForceOwnership); err != nil {
			t.Fatal(err)
		}
		cm := &corev1.ConfigMap{}
		if err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "coredns"}, cm); err != nil {
			t.Fatal(err)
		}
		if cm.Data["v"] != v || cm.Labels["v"] != v {
			t.Fatalf("after applying %s: data %v labels %v", v, cm.Data, cm.Labels)
		}
	}
}

// An unstructured apply, as Cluster API's ssa helpers send it, merges
// lists of built-in kinds by their merge keys.
func TestServerSideApplyOfUnstructuredMergesByKey(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	for name, port := range map[string]int64{"dns": 53, "metrics": 9153} {
		u := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "v1", "kind": "Service",
			"metadata": map[string]any{"name": "kube-dns", "namespace": "kube-system"},
			"spec":     map[string]any{"ports": []any{map[string]any{"name": name, "port": port}}}}}
		if err := c.Apply(ctx, client.ApplyConfigurationFromUnstructured(u), client.FieldOwner("test")); err != nil {
			t.Fatal(err)
		}
	}
	svc := &corev1.Service{}
	if err := c.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "kube-dns"}, svc); err != nil {
		t.Fatal(err)
	}
	if len(svc.Spec.Ports) != 2 {
		t.Fatalf("ports after applying two by name: %+v", svc.Spec.Ports)
	}
}
