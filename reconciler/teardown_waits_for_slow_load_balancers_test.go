package reconciler

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
)

// While Octavia deletes a cluster's load balancer (PENDING_DELETE for a
// while) the teardown waits, the cluster DELETE_IN_PROGRESS with a reason
// naming it, and the CAPI Cluster is left; the deletion is asked once.
func TestTeardownWaitsForSlowLoadBalancers(t *testing.T) {
	f := newLBFixture(t, time.Minute)
	ctx := context.Background()
	uuid := f.st.Cluster.UUID
	lb := f.addLB(occm("default/web", uuid), true)
	f.cloud.SetDeletePolls(1000)

	f.commit("delete cluster", gitstore.Change{Path: f.st.Dir, Delete: true})
	for i := 0; i < 8; i++ {
		f.rec.Sync(ctx)
		time.Sleep(20 * time.Millisecond)
	}
	if f.clusterDeleting() {
		t.Fatal("the CAPI Cluster's delete was asked while its load balancer is being deleted")
	}
	deleting, failed := f.sink.reasons(uuid)
	if !strings.Contains(deleting, "Deleting the load balancers "+lb.Name) || failed != "" {
		t.Fatalf("sink: deleting %q, failed %q; want a reason naming %s", deleting, failed, lb.Name)
	}
	if n := f.cloud.Lists(); n < 4 {
		t.Errorf("Octavia was asked %d times, want a poll per pass", n)
	}
	if n := len(f.cloud.LoadBalancerDeletes()); n != 1 {
		t.Errorf("%d deletions asked, want one (the others see PENDING_DELETE)", n)
	}

	f.cloud.SetDeletePolls(0) // Octavia is done
	f.eventually("the CAPI Cluster's delete", f.clusterDeleting)
	if left := f.left(lb); len(left) != 0 {
		t.Fatalf("the Cluster's delete was asked with %v left", left)
	}
	f.release()
	f.eventually("the teardown to finish", func() bool { return f.sink.isGone(uuid) })
}
