package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"

	"github.com/openkeel/keel/gitstore"
)

// The teardown of a cluster whose credential was rotated deletes, besides
// the current credential, each one the rotations retired that may still be
// in Keystone, each in its owner's name, once the CAPI Cluster is gone.
func TestTeardownDeletesRetiredCredentials(t *testing.T) {
	creds := &fakeCredentials{}
	f, st, clusterKey, secretKey := credentialFixtureRetiring(t, creds, nil, "alice-id/ac-0,bob-id/ac-b")
	ctx := context.Background()

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	f.rec.Sync(ctx)
	if calls := creds.recorded(); len(calls) != 0 {
		t.Fatalf("credentials were deleted while the Cluster exists: %+v", calls)
	}
	releaseCluster(t, clusterKey)
	f.eventually("the cloud-config Secret to be deleted", func() bool {
		return apierrors.IsNotFound(env.Client.Get(ctx, secretKey, &corev1.Secret{}))
	})
	var got []string
	for _, c := range creds.recorded() {
		got = append(got, c.userID+"/"+c.id)
		if c.clusterExists || !c.secretExists {
			t.Errorf("%s/%s: Cluster present %v (want false), Secret present %v (want true)", c.userID, c.id, c.clusterExists, c.secretExists)
		}
	}
	want := []string{"alice-id/ac-0", "bob-id/ac-b", "alice-id/ac-1"}
	if len(got) != len(want) || got[0] != want[0] || got[1] != want[1] || got[2] != want[2] {
		t.Errorf("deleted %v, want %v", got, want)
	}
}
