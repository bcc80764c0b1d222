package lightapi

import (
	"bytes"
	"strconv"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A restored store serves what was stored, CRD-served kinds included, and
// carries on numbering versions after the snapshot's.
func TestSnapshotRestoreRoundTrips(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	c := srv.client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config", Namespace: "kube-system"}, Data: map[string]string{"k": "v"}}
	w := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget",
		"metadata": map[string]any{"name": "w1", "namespace": "default"}}}
	for _, o := range []client.Object{widgetCRD(), cm, w} {
		if err := c.Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	var buf bytes.Buffer
	if err := srv.store.Snapshot(&buf); err != nil {
		t.Fatal(err)
	}
	restored := NewStore()
	if err := restored.Restore(&buf); err != nil {
		t.Fatal(err)
	}
	c2 := newServerFor(t, restored).client(t)
	gotCM, gotW := &corev1.ConfigMap{}, &unstructured.Unstructured{Object: map[string]any{"apiVersion": "example.com/v1", "kind": "Widget"}}
	if err := c2.Get(ctx, client.ObjectKeyFromObject(cm), gotCM); err != nil || gotCM.Data["k"] != "v" || gotCM.UID != cm.UID {
		t.Fatalf("restored ConfigMap: %+v %v", gotCM, err)
	}
	if err := c2.Get(ctx, client.ObjectKeyFromObject(w), gotW); err != nil || gotW.GetResourceVersion() != w.GetResourceVersion() {
		t.Fatalf("restored Widget: %+v %v", gotW, err)
	}
	next := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "next", Namespace: "default"}}
	if err := c2.Create(ctx, next); err != nil {
		t.Fatal(err)
	}
	if rv(t, next.ResourceVersion) <= rv(t, w.GetResourceVersion()) {
		t.Fatalf("version after restore %s is not after the snapshot's %s", next.ResourceVersion, w.GetResourceVersion())
	}
}

func rv(t *testing.T, s string) uint64 {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return n
}
