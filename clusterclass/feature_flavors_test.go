package clusterclass

import "testing"

func TestFlavors(t *testing.T) {
	st := generate(t, tc{
		vars:      map[string]any{VarControlPlaneFlavor: "cp.xl", VarFlavor: "w.m"},
		overrides: map[string]map[string]any{"gpu": {VarFlavor: "g.xl"}},
	})
	equal(t, cpMachines(st), "spec.template.spec.flavor", "cp.xl")
	_, def := md(t, st, "default-worker")
	equal(t, def, "spec.template.spec.flavor", "w.m")
	_, gpu := md(t, st, "gpu")
	equal(t, gpu, "spec.template.spec.flavor", "g.xl")
}
