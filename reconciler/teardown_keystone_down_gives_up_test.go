package reconciler

import (
	"context"
	"errors"
	"strings"
	"testing"

	"k8s.io/client-go/tools/record"

	"github.com/openkeel/keel/gitstore"
)

// Keystone failing does not hold a cluster's teardown: the deletion of its
// application credential is tried CredentialAttempts times, then a warning
// Event says the credential is left, and the teardown finishes.
func TestTeardownKeystoneDownGivesUp(t *testing.T) {
	creds := &fakeCredentials{err: errors.New("keystone unreachable")}
	events := record.NewFakeRecorder(100)
	f, st, clusterKey, _ := credentialFixture(t, creds, events)
	ctx := context.Background()

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	f.rec.Sync(ctx)
	releaseCluster(t, clusterKey)
	f.eventually("the teardown to finish", func() bool { return f.sink.isGone(st.Cluster.UUID) })
	if n := len(creds.recorded()); n != 3 {
		t.Errorf("%d attempts, want CredentialAttempts (3)", n)
	}
	var warned bool
	for len(events.Events) > 0 {
		e := <-events.Events
		if strings.HasPrefix(e, "Warning "+ReasonCredentialNotDeleted) && strings.Contains(e, "ac-1") {
			warned = true
		}
	}
	if !warned {
		t.Error("no warning Event says the credential is left")
	}
}
