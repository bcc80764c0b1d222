package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/kube"
)

// When a cluster's folder leaves Git, its CAPI Cluster is deleted first and
// its credentials stay until the Cluster is gone (CAPO needs them to delete
// the OpenStack resources); only then are they deleted, with the inventory.
func TestTeardownDeletesClusterBeforeCredentials(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("teardown", 1)
	secretName := st.Cluster.StackID + "-cloud-config"
	f.write(st, renderedSecret(st, secretName)...)
	f.rec.Sync(ctx)

	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	release := holdCluster(t, key)

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	f.eventually("the Cluster to be marked for deletion", func() bool {
		var c clusterv1.Cluster
		return env.Client.Get(ctx, key, &c) == nil && c.DeletionTimestamp != nil
	})
	// Several passes while the Cluster waits: the Secret must survive them.
	for i := 0; i < 5; i++ {
		f.rec.Sync(ctx)
	}
	var s corev1.Secret
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: secretName}, &s); err != nil {
		t.Fatalf("the credentials were deleted while the Cluster still exists: %v", err)
	}
	if f.sink.deleting[st.Cluster.UUID] == "" || f.sink.isGone(st.Cluster.UUID) {
		t.Fatalf("sink: deleting %q gone %v", f.sink.deleting[st.Cluster.UUID], f.sink.isGone(st.Cluster.UUID))
	}

	// CAPI finishes: the finalizer goes, and so must everything else.
	release()
	f.eventually("the credentials and the inventory to be deleted", func() bool {
		errS := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: secretName}, &corev1.Secret{})
		errI := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: inventoryName(st.Cluster.StackID)}, &corev1.ConfigMap{})
		return apierrors.IsNotFound(errS) && apierrors.IsNotFound(errI)
	})
	if !f.sink.isGone(st.Cluster.UUID) {
		t.Error("the sink was not told the cluster is gone")
	}
}
