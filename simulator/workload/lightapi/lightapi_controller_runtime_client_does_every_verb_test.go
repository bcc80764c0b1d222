package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestControllerRuntimeClientDoesEveryVerb(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "kubeadm-config", Namespace: "kube-system",
		Labels: map[string]string{"app": "kubeadm"}}, Data: map[string]string{"a": "1"}}
	if err := c.Create(ctx, cm); err != nil {
		t.Fatal(err)
	}
	if cm.UID == "" || cm.ResourceVersion == "" || cm.CreationTimestamp.IsZero() {
		t.Fatalf("create did not set uid, resourceVersion and creationTimestamp: %+v", cm.ObjectMeta)
	}
	if err := c.Create(ctx, cm.DeepCopy()); !apierrors.IsAlreadyExists(err) {
		t.Fatalf("second create: want AlreadyExists, got %v", err)
	}
	got := &corev1.ConfigMap{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); err != nil || got.Data["a"] != "1" {
		t.Fatalf("get: %v %v", got.Data, err)
	}
	got.Data["a"] = "2"
	if err := c.Update(ctx, got); err != nil {
		t.Fatal(err)
	}
	orig := got.DeepCopy()
	got.Data["b"] = "3"
	if err := c.Patch(ctx, got, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	list := &corev1.ConfigMapList{}
	if err := c.List(ctx, list, client.InNamespace("kube-system"), client.MatchingLabels{"app": "kubeadm"}); err != nil {
		t.Fatal(err)
	}
	if len(list.Items) != 1 || list.Items[0].Data["a"] != "2" || list.Items[0].Data["b"] != "3" {
		t.Fatalf("list after update and patch: %+v", list.Items)
	}
	if err := c.List(ctx, list, client.MatchingLabels{"app": "other"}); err != nil || len(list.Items) != 0 {
		t.Fatalf("list with another label: %d items, %v", len(list.Items), err)
	}
	if err := c.Delete(ctx, got); err != nil {
		t.Fatal(err)
	}
	if err := c.Get(ctx, client.ObjectKeyFromObject(cm), got); !apierrors.IsNotFound(err) {
		t.Fatalf("get after delete: want NotFound, got %v", err)
	}
	for _, n := range []string{"x", "y"} {
		if err := c.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: n, Namespace: "default", Labels: map[string]string{"k": "v"}}}); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.DeleteAllOf(ctx, &corev1.Secret{}, client.InNamespace("default"), client.MatchingLabels{"k": "v"}); err != nil {
		t.Fatal(err)
	}
	secrets := &corev1.SecretList{}
	if err := c.List(ctx, secrets, client.InNamespace("default")); err != nil || len(secrets.Items) != 0 {
		t.Fatalf("after DeleteAllOf: %d secrets, %v", len(secrets.Items), err)
	}
}
