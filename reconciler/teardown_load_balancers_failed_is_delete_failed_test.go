package reconciler

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
)

// When a cluster's load balancers cannot be deleted (Octavia failing
// CredentialAttempts times, or the load balancers not gone within
// LoadBalancerTimeout), the cluster is DELETE_FAILED with a reason naming
// them and its CAPI Cluster is left (its network could not be deleted);
// the teardown retries, and once Octavia recovers it goes on.
func TestTeardownLoadBalancersFailedIsDeleteFailed(t *testing.T) {
	for _, tc := range []struct {
		name   string
		break_ func(f *lbFixture)
		fix    func(f *lbFixture)
		reason string
	}{
		{"octavia failing", func(f *lbFixture) { f.cloud.Fail(1 << 20) }, func(f *lbFixture) { f.cloud.Fail(0) },
			"Deleting the cluster's load balancers failed 3 times"},
		{"timeout", func(f *lbFixture) { f.cloud.SetDeletePolls(1 << 20) }, func(f *lbFixture) { f.cloud.SetDeletePolls(0) },
			"Timeout waiting for the load balancers kube_service_0 to be deleted."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			f := newLBFixture(t, 300*time.Millisecond)
			ctx := context.Background()
			uuid := f.st.Cluster.UUID
			lb := f.addLB(occm("default/web", uuid), true)
			tc.break_(f)

			f.commit("delete cluster", gitstore.Change{Path: f.st.Dir, Delete: true})
			f.eventually("DELETE_FAILED", func() bool {
				_, failed := f.sink.reasons(uuid)
				return failed != ""
			})
			if _, failed := f.sink.reasons(uuid); !strings.Contains(failed, tc.reason) {
				t.Fatalf("DELETE_FAILED reason %q, want %q", failed, tc.reason)
			}
			if f.clusterDeleting() {
				t.Fatal("the CAPI Cluster's delete was asked with its load balancers left")
			}
			// Still failed while the next round waits.
			f.rec.Sync(ctx)
			if _, failed := f.sink.reasons(uuid); failed == "" {
				t.Fatal("the failure was cleared before a round succeeded")
			}

			tc.fix(f)
			f.eventually("the CAPI Cluster's delete", f.clusterDeleting)
			if left := f.left(lb); len(left) != 0 {
				t.Fatalf("the Cluster's delete was asked with %v left", left)
			}
			if deleting, failed := f.sink.reasons(uuid); failed != "" || deleting == "" {
				t.Errorf("after the retry: deleting %q, failed %q; want DELETE_IN_PROGRESS", deleting, failed)
			}
			f.release()
			f.eventually("the teardown to finish", func() bool { return f.sink.isGone(uuid) })
		})
	}
}
