package clusterclass

import "testing"

func TestControlPlaneAvailabilityZones(t *testing.T) {
	equal(t, osc(generate(t, tc{vars: map[string]any{VarControlPlaneAvailabilityZones: []string{"az1", "az2", "az3"}}})),
		"spec.controlPlaneAvailabilityZones", []any{"az1", "az2", "az3"})
	absent(t, osc(generate(t, tc{})), "spec.controlPlaneAvailabilityZones")
}
