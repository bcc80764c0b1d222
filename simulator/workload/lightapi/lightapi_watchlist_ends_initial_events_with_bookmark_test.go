package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/utils/ptr"
)

// client-go's WatchList (on by default) lists by watching with
// sendInitialEvents and waits for the bookmark that ends them.
func TestWatchListEndsInitialEventsWithBookmark(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	cms := srv.clientset(t).CoreV1().ConfigMaps("default")
	for _, n := range []string{"a", "b"} {
		if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: n}}, metav1.CreateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
	w, err := cms.Watch(ctx, metav1.ListOptions{SendInitialEvents: ptr.To(true), AllowWatchBookmarks: true,
		ResourceVersionMatch: metav1.ResourceVersionMatchNotOlderThan})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	var got []string
	for e := range w.ResultChan() {
		cm := e.Object.(*corev1.ConfigMap)
		got = append(got, string(e.Type)+" "+cm.Name)
		if e.Type == watch.Bookmark {
			if cm.Annotations[metav1.InitialEventsAnnotationKey] != "true" || cm.ResourceVersion == "" {
				t.Fatalf("bookmark without the initial-events-end annotation or a version: %+v", cm.ObjectMeta)
			}
			break
		}
	}
	if want := "[ADDED a ADDED b BOOKMARK ]"; want != fmtList(got) {
		t.Fatalf("got %v, want %s", got, want)
	}
}

func fmtList(xs []string) string {
	out := "["
	for i, x := range xs {
		if i > 0 {
			out += " "
		}
		out += x
	}
	return out + "]"
}
