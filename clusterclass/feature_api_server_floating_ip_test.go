package clusterclass

import "testing"

func TestAPIServerFloatingIP(t *testing.T) {
	equal(t, osc(generate(t, tc{vars: map[string]any{VarAPIServerFloatingIP: "203.0.113.10"}})), "spec.apiServerFloatingIP", "203.0.113.10")
	absent(t, osc(generate(t, tc{})), "spec.apiServerFloatingIP")
}
