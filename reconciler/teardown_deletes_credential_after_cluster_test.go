package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openkeel/keel/gitstore"
)

// A deleted cluster's application credential is deleted in Keystone only
// once its CAPI Cluster is gone (CAPO authenticates with it until then),
// with the ID and owner read from the cloud-config Secret, before that
// Secret is deleted.
func TestTeardownDeletesCredentialAfterCluster(t *testing.T) {
	creds := &fakeCredentials{}
	f, st, clusterKey, secretKey := credentialFixture(t, creds, nil)
	ctx := context.Background()

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	for i := 0; i < 5; i++ {
		f.rec.Sync(ctx)
	}
	if calls := creds.recorded(); len(calls) != 0 {
		t.Fatalf("the credential was deleted while the Cluster exists: %+v", calls)
	}
	releaseCluster(t, clusterKey)
	f.eventually("the cloud-config Secret to be deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, secretKey, &corev1.Secret{}))
	})
	calls := creds.recorded()
	if len(calls) != 1 {
		t.Fatalf("%d deletions, want 1: %+v", len(calls), calls)
	}
	c := calls[0]
	if c.id != "ac-1" || c.userID != "alice-id" {
		t.Errorf("deleted credential %q of %q, want ac-1 of alice-id", c.id, c.userID)
	}
	if c.clusterExists || !c.secretExists {
		t.Errorf("at the deletion: Cluster present %v (want false), Secret present %v (want true)", c.clusterExists, c.secretExists)
	}
	f.eventually("the teardown to finish", func() bool { return f.sink.isGone(st.Cluster.UUID) })
}
