package openstack

import (
	"context"
	"slices"
	"testing"
	"time"
)

// Against the real Octavia and Neutron: the load balancers OCCM made for
// the cluster (named by their description) are deleted by keel's service
// user with their listeners and pools (cascade) and the floating IPs on
// their VIPs; DeleteClusterLoadBalancers reports them until Octavia has
// deleted them. Another cluster's load balancer, in the same project, and
// its floating IP stay.
func TestRealOpenStackClusterLoadBalancersDeleted(t *testing.T) {
	t.Parallel() // each in a project of its own: the load balancer waits overlap the rest
	cloud, c := realCloud(t)
	p := cloud.NewProject(t)
	subnet := p.TenantSubnet(t)
	const cluster, other = "5d12f6fd-7c1e-4d4b-9a57-2f1c3e4d5a6b", "0b9e8d7c-6f5a-4b3c-8d2e-1f0a9b8c7d6e"
	web := p.OCCMLoadBalancer(t, subnet, "default/web", cluster, true)
	dns := p.OCCMLoadBalancer(t, subnet, "kube-system/dns", cluster, false)
	theirs := p.OCCMLoadBalancer(t, subnet, "default/web", other, true)

	deadline := time.Now().Add(3 * time.Minute)
	for rounds := 1; ; rounds++ {
		left, err := c.DeleteClusterLoadBalancers(context.Background(), p.ID, cluster)
		if err != nil {
			t.Fatalf("round %d: %v", rounds, err)
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still left after %d rounds: %+v", rounds, left)
		}
		time.Sleep(2 * time.Second)
	}
	var names []string
	for _, r := range p.Inventory(t) {
		if r.Kind == "load balancer" || r.Kind == "floating IP" {
			names = append(names, r.Kind+" "+r.ID)
		}
	}
	want := []string{"load balancer " + theirs.ID, "floating IP " + theirs.FloatingIPID}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("left in the project: %v, want only the other cluster's %v (deleted: %s, %s)", names, want, web.ID, dns.ID)
	}
}
