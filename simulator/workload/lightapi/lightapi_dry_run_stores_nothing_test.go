package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestDryRunStoresNothing(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "dry", Namespace: "default"}, Data: map[string]string{"v": "1"}}
	if err := c.Create(ctx, cm.DeepCopy(), client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), &corev1.ConfigMap{}); !apierrors.IsNotFound(err) {
		t.Fatalf("after a dry-run create: want NotFound, got %v", err)
	}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	changed := cm.DeepCopy()
	changed.Data["v"] = "2"
	if err := c.Update(ctx, changed, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	if err := c.Delete(ctx, cm, client.DryRunAll); err != nil {
		t.Fatal(err)
	}
	got := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil || got.Data["v"] != "1" || got.ResourceVersion != cm.ResourceVersion {
		t.Fatalf("after a dry-run update and delete: %+v %v", got, err)
	}
}
