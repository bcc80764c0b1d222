package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openkeel/keel/gitstore"
)

// A deleted cluster is gone (the API's 404) only once every object it had
// applied is gone: one whose finalizer a controller still holds (Cluster
// API's on a ClusterResourceSet) keeps the teardown waiting.
func TestTeardownWaitsForFinalizers(t *testing.T) {
	creds := &fakeCredentials{}
	f, st, clusterKey, secretKey := credentialFixture(t, creds, nil)
	ctx := context.Background()
	var sec corev1.Secret
	if err := env.Client.Get(ctx, secretKey, &sec); err != nil {
		t.Fatal(err)
	}
	sec.Finalizers = append(sec.Finalizers, "test.keel.openkeel.io/held")
	if err := env.Client.Update(ctx, &sec); err != nil {
		t.Fatal(err)
	}

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	releaseCluster(t, clusterKey)
	f.eventually("the held Secret to be deleting", func() bool {
		f.rec.Sync(ctx)
		err := env.Client.Get(ctx, secretKey, &sec)
		return err == nil && !sec.DeletionTimestamp.IsZero()
	})
	for i := 0; i < 5; i++ {
		f.rec.Sync(ctx)
	}
	if f.sink.isGone(st.Cluster.UUID) {
		t.Fatal("the cluster was reported gone while a Secret it applied still exists (held by a finalizer)")
	}

	sec.Finalizers = nil
	if err := env.Client.Update(ctx, &sec); err != nil {
		t.Fatal(err)
	}
	f.eventually("the teardown to finish", func() bool {
		f.rec.Sync(ctx)
		return f.sink.isGone(st.Cluster.UUID) && apierrors.IsNotFound(env.Client.Get(ctx, secretKey, &corev1.Secret{}))
	})
}
