package clusterclass

import "testing"

func TestSSHKeyName(t *testing.T) {
	st := generate(t, tc{vars: map[string]any{VarSSHKeyName: "ops"}})
	_, w := md(t, st, "default-worker")
	equal(t, cpMachines(st), "spec.template.spec.sshKeyName", "ops")
	equal(t, w, "spec.template.spec.sshKeyName", "ops")

	st = generate(t, tc{})
	absent(t, cpMachines(st), "spec.template.spec.sshKeyName")
}
