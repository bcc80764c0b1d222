package clusterclass

import "testing"

func TestNodeLabelsAndTaints(t *testing.T) {
	st := generate(t, tc{overrides: map[string]map[string]any{
		"gpu": {
			VarNodeLabels: "accelerator=nvidia,node.kubernetes.io/pool=gpu",
			VarNodeTaints: []map[string]string{{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}},
		},
	}})
	gpu, _ := md(t, st, "gpu")
	if got := args(t, gpu, kctJoinArgs)["node-labels"]; got != "accelerator=nvidia,node.kubernetes.io/pool=gpu" {
		t.Errorf("node-labels = %q", got)
	}
	equal(t, gpu, "spec.template.spec.joinConfiguration.nodeRegistration.taints",
		[]any{map[string]any{"key": "nvidia.com/gpu", "value": "present", "effect": "NoSchedule"}})
	def, _ := md(t, st, "default-worker")
	if _, ok := args(t, def, kctJoinArgs)["node-labels"]; ok {
		t.Error("default-worker got the gpu labels")
	}
	absent(t, def, "spec.template.spec.joinConfiguration.nodeRegistration.taints")
}
