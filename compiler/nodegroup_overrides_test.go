package compiler

import "testing"

// A nodegroup overrides only what differs from the cluster, always names its
// own server group, and its labels fall back to the cluster's.
func TestNodeGroupOverrides(t *testing.T) {
	cl := renderedCluster(t, testInputs(t)["three-nodegroups"])
	overrides := map[string]map[string]string{}
	for _, md := range cl.Spec.Topology.Workers.MachineDeployments {
		overrides[md.Name] = map[string]string{}
		for _, v := range md.Variables.Overrides {
			overrides[md.Name][v.Name] = string(v.Value.Raw)
		}
	}
	if got := overrides["default-worker"]; len(got) != 1 || got["serverGroupId"] != `"2c9d1e3f-0000-4000-8000-00000000a001"` {
		t.Errorf("default-worker overrides = %v, want its server group only", got)
	}
	gpu := overrides["gpu"]
	if gpu["bootVolume"] != `{"size":200,"type":"nvme"}` || gpu["flavor"] != `"g1.xlarge"` || gpu["isServerGroupDiffFailureDomain"] != "false" {
		t.Errorf("gpu overrides = %v", gpu)
	}
	// edge sets no boot volume label: the cluster's applies, so no override.
	if _, ok := overrides["edge"]["bootVolume"]; ok {
		t.Errorf("edge overrides the cluster's boot volume: %v", overrides["edge"])
	}
	for _, md := range cl.Spec.Topology.Workers.MachineDeployments {
		if md.FailureDomain == "" {
			t.Errorf("%s has no failure domain (availability_zone)", md.Name)
		}
	}
}
