package clusterclass

import "testing"

func TestBootVolume(t *testing.T) {
	st := generate(t, tc{
		vars: map[string]any{VarBootVolume: map[string]any{"size": 50, "type": "ssd"}, VarBootVolumeAvailabilityZone: "az1"},
		overrides: map[string]map[string]any{
			"big":   {VarBootVolume: map[string]any{"size": 200, "type": ""}},
			"local": {VarBootVolume: map[string]any{"size": 0, "type": ""}},
		},
	})
	equal(t, cpMachines(st), "spec.template.spec.rootVolume", map[string]any{"sizeGiB": 50, "type": "ssd", "availabilityZone": map[string]any{"name": "az1"}})
	_, w := md(t, st, "default-worker")
	equal(t, w, "spec.template.spec.rootVolume.sizeGiB", 50)
	_, big := md(t, st, "big")
	equal(t, big, "spec.template.spec.rootVolume", map[string]any{"sizeGiB": 200, "availabilityZone": map[string]any{"name": "az1"}})
	_, local := md(t, st, "local")
	absent(t, local, "spec.template.spec.rootVolume")

	st = generate(t, tc{})
	absent(t, cpMachines(st), "spec.template.spec.rootVolume")
}
