package cilium

import "testing"

// The agent is the DaemonSet kube-system/cilium: the kubelets (and keel's
// workload simulator) wait for it to call the Nodes' network ready.
func TestAgentIsDaemonSetCilium(t *testing.T) {
	ds := find(render(t, params()), "DaemonSet", "cilium")
	if ds == nil || ds.GetNamespace() != "kube-system" {
		t.Fatalf("no DaemonSet kube-system/cilium: %v", ds)
	}
}
