package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// A document that leaves a cluster's rendered folder is pruned from the
// management cluster, while the cluster itself stays.
func TestSyncPrunesWhatLeftTheFolder(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("prune", 1)
	name := st.Cluster.StackID + "-extra"
	f.write(st, renderedSecret(st, name)...)
	f.rec.Sync(ctx)
	key := client.ObjectKey{Namespace: kube.Namespace, Name: name}
	if err := env.Client.Get(ctx, key, &corev1.Secret{}); err != nil {
		t.Fatal(err)
	}

	f.write(st) // re-render without the extra document
	f.rec.Sync(ctx)
	if err := env.Client.Get(ctx, key, &corev1.Secret{}); !apierrors.IsNotFound(err) {
		t.Fatalf("the Secret that left Git is still there (err %v)", err)
	}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}, &corev1.ConfigMap{}); err == nil {
		t.Fatal("unexpected ConfigMap named like the cluster")
	}
}
