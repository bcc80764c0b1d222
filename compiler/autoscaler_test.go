package compiler

import (
	"testing"

	"k8s.io/apimachinery/pkg/api/resource"
)

// With auto_scaling_enabled, replicas are left to the autoscaler and the
// bounds and scale-from-zero capacity are annotations whose quantities the
// autoscaler parses correctly (memory in Mi, disk in Gi; the reference's
// disk had no unit and read as bytes).
func TestAutoscalingAnnotations(t *testing.T) {
	cl := renderedCluster(t, testInputs(t)["cilium-autoscaling"])
	mds := cl.Spec.Topology.Workers.MachineDeployments
	if len(mds) != 2 {
		t.Fatalf("%d machine deployments", len(mds))
	}
	for _, md := range mds {
		if md.Replicas != nil {
			t.Errorf("%s: replicas set with autoscaling", md.Name)
		}
	}
	def, batch := mds[0].Metadata.Annotations, mds[1].Metadata.Annotations
	want := map[string]string{
		AnnotationAutoscalerMinSize: "1", AnnotationAutoscalerMaxSize: "6",
		AnnotationCapacityCPU: "2", AnnotationCapacityMemory: "4096Mi", AnnotationCapacityEphemeralDisk: "40Gi",
		AnnotationCapacityLabels: "node-role.kubernetes.io/worker=,node.cluster.x-k8s.io/nodegroup=default-worker",
	}
	for k, v := range want {
		if def[k] != v {
			t.Errorf("default-worker %s = %q, want %q", k, def[k], v)
		}
	}
	// max_node_count from the nodegroup label; scale from zero.
	if batch[AnnotationAutoscalerMinSize] != "0" || batch[AnnotationAutoscalerMaxSize] != "10" {
		t.Errorf("batch bounds = %s..%s", batch[AnnotationAutoscalerMinSize], batch[AnnotationAutoscalerMaxSize])
	}
	if got := batch[AnnotationCapacityLabels]; got != "node-role.kubernetes.io/worker=,node.cluster.x-k8s.io/nodegroup=batch,workload=batch" {
		t.Errorf("batch capacity labels = %q", got)
	}
	mem := resource.MustParse(batch[AnnotationCapacityMemory])
	if mem.Value() != 1536*1024*1024 {
		t.Errorf("batch memory %s = %d bytes", batch[AnnotationCapacityMemory], mem.Value())
	}
	disk := resource.MustParse(batch[AnnotationCapacityEphemeralDisk])
	if disk.Value() != 20*1024*1024*1024 {
		t.Errorf("batch disk %s = %d bytes", batch[AnnotationCapacityEphemeralDisk], disk.Value())
	}
}

// Without bounds, max is never below the current size.
func TestAutoscalingDefaultMax(t *testing.T) {
	in := testInputs(t)["cilium-autoscaling"]
	for i := range in.NodeGroups {
		if in.NodeGroups[i].Name == "default-worker" {
			in.NodeGroups[i].MaxNodeCount = nil
			in.NodeGroups[i].NodeCount = 4
		}
	}
	cl := renderedCluster(t, in)
	if got := cl.Spec.Topology.Workers.MachineDeployments[0].Metadata.Annotations[AnnotationAutoscalerMaxSize]; got != "4" {
		t.Errorf("max = %s, want 4 (the current size)", got)
	}
}
