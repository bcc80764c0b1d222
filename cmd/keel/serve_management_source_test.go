package main

import "testing"

// --kubeconfig wins, a Pod uses its own cluster, and only outside a Pod
// without --kubeconfig does keel start the embedded management cluster.
func TestManagementClusterSource(t *testing.T) {
	for _, c := range []struct {
		name, kubeconfig, serviceHost string
		want                          configSource
	}{
		{"nothing: embedded", "", "", sourceEmbedded},
		{"kubeconfig outside a pod", "/etc/keel/mgmt.yaml", "", sourceKubeconfig},
		{"in a pod", "", "10.96.0.1", sourceInCluster},
		{"kubeconfig in a pod wins", "/etc/keel/mgmt.yaml", "10.96.0.1", sourceKubeconfig},
	} {
		t.Run(c.name, func(t *testing.T) {
			getenv := func(k string) string {
				if k == "KUBERNETES_SERVICE_HOST" {
					return c.serviceHost
				}
				return ""
			}
			if got := managementSource(c.kubeconfig, getenv); got != c.want {
				t.Errorf("managementSource(%q, KUBERNETES_SERVICE_HOST=%q) = %d, want %d", c.kubeconfig, c.serviceHost, got, c.want)
			}
		})
	}
}
