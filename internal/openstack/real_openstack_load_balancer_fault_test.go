package openstack

import (
	"context"
	"strings"
	"testing"
)

// Against the real Octavia: a cluster's API load balancer, found by the
// name CAPO gives it, has no fault while ACTIVE; once Octavia has put it
// in ERROR (written in Octavia's database, standing in for an amphora that
// failed: the test cloud's no-op amphora cannot), LoadBalancerFault names
// it, its ID and the status. Another project's load balancer of the same
// name is not looked at.
func TestRealOpenStackLoadBalancerFaultNamesTheErroredLoadBalancer(t *testing.T) {
	t.Parallel() // each in a project of its own: the load balancer waits overlap the rest
	cloud, c := realCloud(t)
	p, other := cloud.NewProject(t), cloud.NewProject(t)
	name := APILoadBalancerName("magnum-system", "kube-lbfault")
	lb := p.NamedLoadBalancer(t, p.TenantSubnet(t), name)
	theirs := other.NamedLoadBalancer(t, other.TenantSubnet(t), name)
	ctx := context.Background()

	if got, err := c.LoadBalancerFault(ctx, p.ID, name); err != nil || got != "" {
		t.Fatalf("ACTIVE load balancer: fault %q, %v; want none", got, err)
	}
	cloud.SetLoadBalancerStatus(t, theirs.ID, "ERROR")
	if got, err := c.LoadBalancerFault(ctx, p.ID, name); err != nil || got != "" {
		t.Fatalf("another project's load balancer in ERROR: fault %q, %v; want none", got, err)
	}
	cloud.SetLoadBalancerStatus(t, lb.ID, "ERROR")
	got, err := c.LoadBalancerFault(ctx, p.ID, name)
	if err != nil {
		t.Fatal(err)
	}
	want := "Octavia load balancer " + name + " (" + lb.ID + ") is in ERROR: provisioning_status ERROR"
	if !strings.HasPrefix(got, want) {
		t.Fatalf("fault %q, want it to start with %q", got, want)
	}
}
