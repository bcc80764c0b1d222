package simulator

import "testing"

// The simulated control plane endpoint uses the cluster's API server port
// (keel's apiserver_port), as CAPO's load balancer listener would, and 6443
// when none is set.
func TestEndpointPortFollowsAPIServerPort(t *testing.T) {
	startSimulator(t)
	for _, tc := range []struct {
		port, want int32
	}{{0, 6443}, {7443, 7443}} {
		c := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)})
		c.Spec.ClusterNetwork.APIServerPort = tc.port
		applyCluster(t, c)
		waitAvailable(t, c.Name)
		if got := getCluster(t, c.Name).Spec.ControlPlaneEndpoint.Port; got != tc.want {
			t.Errorf("apiServerPort %d: controlPlaneEndpoint port %d, want %d", tc.port, got, tc.want)
		}
	}
}
