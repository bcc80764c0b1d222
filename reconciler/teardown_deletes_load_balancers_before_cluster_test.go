package reconciler

import (
	"context"
	"slices"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
)

// A deleted cluster's load balancers (OCCM's, named by its UUID in their
// description, in its project) are deleted with cascade, and the floating
// IPs on their VIP ports, before its CAPI Cluster is asked to go: CAPO
// deletes the network with it. Other clusters' load balancers, one whose
// cluster name only starts with the UUID and one of another project are
// untouched.
func TestTeardownDeletesLoadBalancersBeforeCluster(t *testing.T) {
	f := newLBFixture(t, time.Minute)
	ctx := context.Background()
	uuid := f.st.Cluster.UUID
	web := f.addLB(occm("default/web", uuid), true)
	ingress := f.addLB(occm("kube-system/ingress", uuid), false)
	others := []string{
		f.addLB(occm("default/web", "00000000-0000-4000-8000-999999999999"), true).ID,
		f.addLB(occm("default/web", uuid+"-old"), true).ID,
		f.addLBIn("p2", occm("default/web", uuid), true).ID,
	}
	f.cloud.SetDeletePolls(2) // Octavia takes a moment

	f.commit("delete cluster", gitstore.Change{Path: f.st.Dir, Delete: true})
	f.rec.Sync(ctx)
	want := []string{web.ID + " cascade=true", ingress.ID + " cascade=true"}
	if got := f.cloud.LoadBalancerDeletes(); !slices.Equal(got, want) {
		t.Fatalf("Octavia was asked to delete %v, want %v", got, want)
	}
	if got := len(f.cloud.FloatingIPDeletes()); got != 1 {
		t.Fatalf("%d floating IPs deleted, want web's", got)
	}
	if f.clusterDeleting() {
		t.Fatal("the CAPI Cluster's delete was asked while its load balancers exist")
	}
	f.eventually("the CAPI Cluster's delete", f.clusterDeleting)
	if left := f.left(web, ingress); len(left) != 0 {
		t.Fatalf("the CAPI Cluster's delete was asked while Octavia still holds %v", left)
	}
	var kept []string
	for _, lb := range f.cloud.LoadBalancers() {
		kept = append(kept, lb.ID)
		if lb.ProvisioningStatus != "ACTIVE" {
			t.Errorf("another load balancer is %s", lb.ProvisioningStatus)
		}
	}
	if !slices.Equal(kept, others) {
		t.Errorf("Octavia holds %v, want the others %v", kept, others)
	}
	if n := len(f.cloud.FloatingIPs()); n != 3 {
		t.Errorf("%d floating IPs left, want the others' 3", n)
	}
	f.release()
	f.eventually("the teardown to finish", func() bool { return f.sink.isGone(uuid) })
	if n := len(f.cloud.LoadBalancerDeletes()); n != 2 {
		t.Errorf("%d deletions asked, want 2", n)
	}
}
