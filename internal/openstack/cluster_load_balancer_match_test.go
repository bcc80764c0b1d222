package openstack

import "testing"

// Only OCCM's descriptions of exactly this cluster match.
func TestClusterLoadBalancerMatch(t *testing.T) {
	for _, tc := range []struct {
		desc string
		want bool
	}{
		{occmDescription("default/web", lbCluster), true},
		{"Kubernetes internal service ns/x from cluster " + lbCluster, true},
		{occmDescription("default/web", lbCluster+"0"), false},
		{occmDescription("default/web", "x"+lbCluster), false},
		{"Kubernetes from cluster " + lbCluster, false},
		{"kubernetes external service a/b from cluster " + lbCluster, false},
		{"", false},
	} {
		if got := ClusterLoadBalancer(tc.desc, lbCluster); got != tc.want {
			t.Errorf("%q: %v, want %v", tc.desc, got, tc.want)
		}
	}
}
