package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/client-go/metadata"
)

// client-go's metadata client (behind controller-runtime's metadata-only
// caches) gets PartialObjectMetadata from get, list and watch.
func TestMetadataOnlyClientsGetPartialObjects(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	node := &corev1.Node{ObjectMeta: metav1.ObjectMeta{Name: "n1", Labels: map[string]string{"role": "worker"}}}
	if err := srv.client(t).Create(ctx, node); err != nil {
		t.Fatal(err)
	}
	mc, err := metadata.NewForConfig(srv.cfg)
	if err != nil {
		t.Fatal(err)
	}
	nodes := mc.Resource(schema.GroupVersionResource{Version: "v1", Resource: "nodes"})
	got, err := nodes.Get(ctx, "n1", metav1.GetOptions{})
	if err != nil || got.Labels["role"] != "worker" || got.UID != node.UID {
		t.Fatalf("get: %+v %v", got, err)
	}
	list, err := nodes.List(ctx, metav1.ListOptions{})
	if err != nil || len(list.Items) != 1 || list.Items[0].Name != "n1" {
		t.Fatalf("list: %+v %v", list, err)
	}
	w, err := nodes.Watch(ctx, metav1.ListOptions{ResourceVersion: "0"})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Stop()
	e := <-w.ResultChan()
	if p, ok := e.Object.(*metav1.PartialObjectMetadata); !ok || p.Name != "n1" {
		t.Fatalf("watch event: %s %#v", e.Type, e.Object)
	}
}
