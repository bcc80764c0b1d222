package clusterclass

import "testing"

func TestDisableAPIServerFloatingIP(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarDisableAPIServerFloatingIP: true, VarDisableAPIServerFloatingIPManaged: true}})
	equal(t, osc(st), "spec.disableAPIServerFloatingIP", true)
	// Not managed: the field stays unset whatever the value (CAPO rejects
	// unset → false on a running cluster).
	st = generate(t, tc{vars: map[string]any{VarDisableAPIServerFloatingIP: false}})
	absent(t, osc(st), "spec.disableAPIServerFloatingIP")
}
