package clusterclass

import "testing"

func TestAPIServerLoadBalancer(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarAPIServerLoadBalancer: map[string]any{
		"enabled": true, "provider": "ovn", "flavor": "", "availabilityZone": "az2", "allowedCIDRs": []string{"10.0.0.0/8", "192.0.2.0/24"},
	}}})
	equal(t, osc(st), "spec.apiServerLoadBalancer", map[string]any{
		"enabled": true, "provider": "ovn", "availabilityZone": "az2", "allowedCIDRs": []any{"10.0.0.0/8", "192.0.2.0/24"},
	})
}

func TestAPIServerLoadBalancerDisabled(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarAPIServerLoadBalancer: map[string]any{"enabled": false, "provider": "amphora"}}})
	absent(t, osc(st), "spec.apiServerLoadBalancer")
}
