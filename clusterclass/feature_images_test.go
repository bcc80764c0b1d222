package clusterclass

import "testing"

func TestImageUUID(t *testing.T) {
	st := generate(t, tc{
		vars:      map[string]any{VarImageUUID: "11111111-1111-1111-1111-111111111111"},
		overrides: map[string]map[string]any{"other": {VarImageUUID: "22222222-2222-2222-2222-222222222222"}},
	})
	equal(t, cpMachines(st), "spec.template.spec.image.id", "11111111-1111-1111-1111-111111111111")
	_, def := md(t, st, "default-worker")
	equal(t, def, "spec.template.spec.image.id", "11111111-1111-1111-1111-111111111111")
	_, other := md(t, st, "other")
	equal(t, other, "spec.template.spec.image.id", "22222222-2222-2222-2222-222222222222")
}

// An image keel could not resolve to a UUID reaches CAPO as a name filter
// (CAPO's schema refuses a name in image.id).
func TestImageByName(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarImageUUID: "ubuntu-2204-kube-v1.33.1"}})
	equal(t, cpMachines(st), "spec.template.spec.image", map[string]any{"filter": map[string]any{"name": "ubuntu-2204-kube-v1.33.1"}})
}
