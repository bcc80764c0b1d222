package clusterclass

import "testing"

// The external network is passed to CAPO by ID, or by name filter when the
// template names it and keel could not resolve the name (CAPO's schema
// refuses a name in "id").
func TestExternalNetworkID(t *testing.T) {
	const id = "6f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f1"
	equal(t, osc(generate(t, tc{vars: map[string]any{VarExternalNetworkID: id}})), "spec.externalNetwork", map[string]any{"id": id})
	equal(t, osc(generate(t, tc{vars: map[string]any{VarExternalNetworkID: "public"}})), "spec.externalNetwork", map[string]any{"filter": map[string]any{"name": "public"}})
	absent(t, osc(generate(t, tc{})), "spec.externalNetwork")
}
