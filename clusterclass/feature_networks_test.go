package clusterclass

import "testing"

func TestManagedNetwork(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarNodeCIDR: "10.1.0.0/24", VarDNSNameservers: []string{"8.8.8.8", "1.1.1.1"}}})
	equal(t, osc(st), "spec.managedSubnets", []any{map[string]any{"cidr": "10.1.0.0/24", "dnsNameservers": []any{"8.8.8.8", "1.1.1.1"}}})
	absent(t, osc(st), "spec.network")
	absent(t, osc(st), "spec.subnets")

	st = generate(t, tc{})
	equal(t, osc(st), "spec.managedSubnets", []any{map[string]any{"cidr": "10.0.0.0/24"}})
}

func TestExistingNetworkAndSubnet(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarFixedNetworkID: "net-1", VarFixedSubnetID: "sub-1"}})
	equal(t, osc(st), "spec.network", map[string]any{"id": "net-1"})
	equal(t, osc(st), "spec.subnets", []any{map[string]any{"id": "sub-1"}})
	absent(t, osc(st), "spec.managedSubnets")
}

// A fixed subnet alone selects the existing network too (the reference
// also created a managed subnet then).
func TestExistingSubnetOnly(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarFixedSubnetID: "sub-1"}})
	equal(t, osc(st), "spec.subnets", []any{map[string]any{"id": "sub-1"}})
	absent(t, osc(st), "spec.managedSubnets")
	absent(t, osc(st), "spec.network")
}
