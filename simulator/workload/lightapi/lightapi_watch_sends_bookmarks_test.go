package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
)

// A watch allowing bookmarks gets them, carrying the version reached, so
// a quiet watcher resumes from a recent version.
func TestWatchSendsBookmarks(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	cms := srv.clientset(t).CoreV1().ConfigMaps("default")
	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "a"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{ResourceVersion: cm.ResourceVersion, AllowWatchBookmarks: true})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e := <-w.ResultChan()
	if b, ok := e.Object.(*corev1.ConfigMap); e.Type != watch.Bookmark || !ok || b.ResourceVersion != cm.ResourceVersion {
		t.Fatalf("want a bookmark at %s, got %s %#v", cm.ResourceVersion, e.Type, e.Object)
	}
}
