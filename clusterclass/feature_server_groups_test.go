package clusterclass

import "testing"

func TestServerGroups(t *testing.T) {
	st := generate(t, tc{
		vars: map[string]any{VarServerGroupID: "cp-group", VarIsServerGroupDiffFailureDomain: true},
		overrides: map[string]map[string]any{
			"default-worker": {VarServerGroupID: "w-group", VarIsServerGroupDiffFailureDomain: false},
			"nogroup":        {VarServerGroupID: ""},
		},
	})
	equal(t, cpMachines(st), "spec.template.spec.serverGroup.id", "cp-group")
	equal(t, cpMachines(st), "spec.template.spec.schedulerHintAdditionalProperties",
		[]any{map[string]any{"name": "different_failure_domain", "value": map[string]any{"type": "Bool", "bool": true}}})
	_, w := md(t, st, "default-worker")
	equal(t, w, "spec.template.spec.serverGroup.id", "w-group")
	absent(t, w, "spec.template.spec.schedulerHintAdditionalProperties")
	// A nodegroup without a group of its own must not join the control
	// plane's (anti-affinity) group.
	_, n := md(t, st, "nogroup")
	absent(t, n, "spec.template.spec.serverGroup")
	equal(t, n, "spec.template.spec.schedulerHintAdditionalProperties.0.value.bool", true)
}
