package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A watch with a label selector sees only matching objects, from the
// version it starts at.
func TestWatchFiltersByLabel(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	cms := srv.clientset(t).CoreV1().ConfigMaps("default")
	first, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "first", Labels: map[string]string{"app": "x"}}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for name, app := range map[string]string{"other": "y", "match": "x"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: name, Labels: map[string]string{"app": app}}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{LabelSelector: "app=x", ResourceVersion: first.ResourceVersion})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e := <-w.ResultChan()
	if cm, ok := e.Object.(*corev1.ConfigMap); !ok || cm.Name != "match" || e.Type != "ADDED" {
		t.Fatalf("first event after %s: %s %#v", first.ResourceVersion, e.Type, e.Object)
	}
}
