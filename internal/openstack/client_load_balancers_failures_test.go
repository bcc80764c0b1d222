package openstack

import (
	"context"
	"errors"
	"testing"

	"github.com/openkeel/keel/internal/testing/keystonetest"
	"github.com/openkeel/keel/internal/testing/octaviatest"
)

// Octavia failing is an error to retry; refusing (a service user without
// the admin role asking for another project's) is a *ForbiddenError; a
// cloud without Octavia has no load balancers to delete.
func TestClientDeleteClusterLoadBalancersFailures(t *testing.T) {
	cloud, client := lbCloud(t, true)
	cloud.AddLoadBalancer(octaviatest.LoadBalancer{Description: occmDescription("default/web", lbCluster), ProjectID: "p1"}, true)
	ctx := context.Background()
	cloud.Fail(1)
	var fb *ForbiddenError
	if _, err := client("keel-admin").DeleteClusterLoadBalancers(ctx, "p1", lbCluster); err == nil || errors.As(err, &fb) {
		t.Fatalf("Octavia answering 500: %v, want an error to retry", err)
	}
	if _, err := client(keystonetest.ServiceUser).DeleteClusterLoadBalancers(ctx, "p1", lbCluster); !errors.As(err, &fb) {
		t.Fatalf("a non-admin service user: %v, want a ForbiddenError", err)
	}
	if n := len(cloud.LoadBalancerDeletes()); n != 0 {
		t.Fatalf("%d deletions after failures", n)
	}

	_, noOctavia := lbCloud(t, false)
	if left, err := noOctavia("keel-admin").DeleteClusterLoadBalancers(ctx, "p1", lbCluster); err != nil || len(left) != 0 {
		t.Fatalf("a cloud without Octavia: %v, %v; want nothing", left, err)
	}
}
