package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// A folder whose periodic resync comes in the same pass as a change of it
// is compared object by object, as a resync is: an object the change did
// not touch but someone edited in the management cluster is restored then,
// not a resync later.
func TestResyncBesideAChangeComparesEveryObject(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("resync-beside-change", 1)
	f.write(st)
	f.rec.Sync(ctx)

	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.UUID} // the addons ConfigMap
	var cm corev1.ConfigMap
	if err := env.Client.Get(ctx, key, &cm); err != nil {
		t.Fatal(err)
	}
	want := cm.DeepCopy()
	for k := range cm.Data {
		cm.Data[k] = "edited"
	}
	if err := env.Client.Update(ctx, &cm, client.FieldOwner("someone-else")); err != nil {
		t.Fatal(err)
	}

	st.NodeGroups[1].NodeCount = 2 // a change that leaves the ConfigMap as it was
	f.write(st)
	f.rec.queueResync(ctx)
	f.rec.driftStep(ctx)

	if err := env.Client.Get(ctx, key, &cm); err != nil {
		t.Fatal(err)
	}
	for k, v := range want.Data {
		if cm.Data[k] != v {
			t.Fatalf("after the resync beside the change, %s of ConfigMap %s is %.40q, want it restored from Git", k, key.Name, cm.Data[k])
		}
	}
}
