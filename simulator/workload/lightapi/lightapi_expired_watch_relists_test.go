package lightapi

import (
	"net/http"
	"strconv"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/watch"
	"k8s.io/client-go/informers"
)

// churn writes more events than the watch history keeps (made small), to
// Secrets, so that a ConfigMap watcher's version falls out of it.
func churn(t *testing.T, srv *server) {
	t.Helper()
	srv.store.SetHistorySize(10)
	ctx := testContext(t)
	secrets := srv.clientset(t).CoreV1().Secrets("default")
	s, err := secrets.Create(ctx, &corev1.Secret{ObjectMeta: metav1.ObjectMeta{Name: "churn"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	for i := 0; i <= 10; i++ {
		s.StringData = map[string]string{"i": strconv.Itoa(i)}
		if s, err = secrets.Update(ctx, s, metav1.UpdateOptions{}); err != nil {
			t.Fatal(err)
		}
	}
}

func TestWatchFromExpiredVersionGetsGone(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	churn(t, srv)
	w, err := srv.clientset(t).CoreV1().ConfigMaps("").Watch(ctx, metav1.ListOptions{ResourceVersion: "2"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e := <-w.ResultChan()
	st, ok := e.Object.(*metav1.Status)
	if e.Type != watch.Error || !ok || !apierrors.IsResourceExpired(apierrors.FromObject(st)) || st.Code != http.StatusGone {
		t.Fatalf("want an ERROR event with 410 Expired, got %s %#v", e.Type, e.Object)
	}
}

// initialLists counts the requests that fetch a whole collection: lists,
// and watches that send initial events (client-go's WatchList).
func initialLists(n *atomic.Int32) func(http.Handler) http.Handler {
	return func(h http.Handler) http.Handler {
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			q := r.URL.Query()
			if r.Method == http.MethodGet && (q.Get("watch") != "true" || q.Get("sendInitialEvents") == "true") {
				n.Add(1)
			}
			h.ServeHTTP(w, r)
		})
	}
}

func TestInformerRelistsWhenItsVersionExpired(t *testing.T) {
	var lists atomic.Int32
	srv := newServerWith(t, NewStore(), initialLists(&lists))
	ctx := testContext(t) // ends the informer before the server closes
	cs := srv.clientset(t)
	f := informers.NewSharedInformerFactory(cs, 0)
	var seen events
	if _, err := f.Core().V1().ConfigMaps().Informer().AddEventHandler(seen.handler()); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	// The watch sees an event, so its end is no error that would make
	// client-go list again anyway: only the expired version does.
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "seen"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "an add", seen.has("add seen"))
	before := lists.Load()

	churn(t, srv)
	srv.store.stopWatches()
	waitFor(ctx, t, "a relist", func() bool { return lists.Load() > before })
	if _, err := cs.CoreV1().ConfigMaps("default").Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "an add after the relist", seen.has("add after"))
}
