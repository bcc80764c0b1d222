package lightapi

import (
	"sync"
	"sync/atomic"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/informers"
	"k8s.io/client-go/tools/cache"
)

// events records what an informer's handler saw, by kind of change.
type events struct {
	sync.Mutex
	seen []string
}

func (e *events) add(s string) {
	e.Lock()
	defer e.Unlock()
	e.seen = append(e.seen, s)
}

func (e *events) has(s string) func() bool {
	return func() bool {
		e.Lock()
		defer e.Unlock()
		for _, x := range e.seen {
			if x == s {
				return true
			}
		}
		return false
	}
}

func (e *events) handler() cache.ResourceEventHandlerFuncs {
	return cache.ResourceEventHandlerFuncs{
		AddFunc: func(o any) { e.add("add " + o.(*corev1.ConfigMap).Name) },
		UpdateFunc: func(_, o any) {
			e.add("update " + o.(*corev1.ConfigMap).Name + " " + o.(*corev1.ConfigMap).Data["v"])
		},
		DeleteFunc: func(o any) {
			if d, ok := o.(cache.DeletedFinalStateUnknown); ok {
				o = d.Obj
			}
			e.add("delete " + o.(*corev1.ConfigMap).Name)
		},
	}
}

func TestInformerSeesChangesAndResumesAfterWatchEnds(t *testing.T) {
	var lists atomic.Int32
	srv := newServerWith(t, NewStore(), initialLists(&lists))
	ctx := testContext(t) // ends the informer before the server closes
	cs := srv.clientset(t)
	cms := cs.CoreV1().ConfigMaps("default")
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "before"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	f := informers.NewSharedInformerFactory(cs, 0)
	var seen events
	if _, err := f.Core().V1().ConfigMaps().Informer().AddEventHandler(seen.handler()); err != nil {
		t.Fatal(err)
	}
	f.Start(ctx.Done())
	f.WaitForCacheSync(ctx.Done())
	waitFor(ctx, t, "the existing object", seen.has("add before"))

	cm, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "new"}}, metav1.CreateOptions{})
	if err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "an add", seen.has("add new"))
	cm.Data = map[string]string{"v": "1"}
	if _, err := cms.Update(ctx, cm, metav1.UpdateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "an update", seen.has("update new 1"))
	if err := cms.Delete(ctx, "new", metav1.DeleteOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "a delete", seen.has("delete new"))

	// The watch saw events, so client-go takes its end as normal and
	// watches again from the last version seen, without listing.
	listed := lists.Load()
	srv.store.stopWatches()
	if _, err := cms.Create(ctx, &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: "after"}}, metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	waitFor(ctx, t, "an add after the watch ended", seen.has("add after"))
	if lists.Load() != listed {
		t.Fatalf("the informer listed again (%d lists, %d before) instead of resuming its watch", lists.Load(), listed)
	}
}
