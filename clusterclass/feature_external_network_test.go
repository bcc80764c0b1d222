package clusterclass

import "testing"

func TestExternalNetworkID(t *testing.T) {
	equal(t, osc(generate(t, tc{vars: map[string]any{VarExternalNetworkID: "ext-net-id"}})), "spec.externalNetwork", map[string]any{"id": "ext-net-id"})
	absent(t, osc(generate(t, tc{})), "spec.externalNetwork")
}
