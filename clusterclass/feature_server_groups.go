package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// Server groups: the Nova server group of the machines (<stack_id> for the
// control plane, <stack_id>-<nodegroup> for each nodegroup, created at API
// time with the server_group_policies policy), and vexxhost's
// different_failure_domain scheduler hint.
const (
	VarServerGroupID                  = "serverGroupId"
	VarIsServerGroupDiffFailureDomain = "isServerGroupDiffFailureDomain"
)

func serverGroups() Feature {
	return Feature{
		Name:   "server_groups",
		Values: serverGroupsValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarServerGroupID, optionalString("Nova server group of the machines (overridden per nodegroup); empty for none.")),
			variable(VarIsServerGroupDiffFailureDomain, boolSchema("Ask Nova to place the machines in different failure domains (different_failure_domain).", false)),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:      "serverGroupId",
				EnabledIf: `{{ ne .serverGroupId "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectAllMachines(),
					fromTemplate("add", "/spec/template/spec/serverGroup", `{"id": {{ .serverGroupId | toJson }}}`))},
			},
			{
				Name: "isServerGroupDiffFailureDomain",
				// Sent only when asked for: the hint needs vexxhost's
				// nova-scheduler filter, and false is the default anyway.
				EnabledIf: `{{ .isServerGroupDiffFailureDomain }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectAllMachines(),
					withValue("add", "/spec/template/spec/schedulerHintAdditionalProperties", []map[string]any{
						{"name": "different_failure_domain", "value": map[string]any{"type": "Bool", "bool": true}},
					}))},
			},
		},
	}
}

func serverGroupsValues(in *Inputs) (map[string]any, error) {
	diff, err := in.Bool(schemas.LabelDifferentFailureDomain)
	return map[string]any{
		VarServerGroupID:                  in.Facts.ServerGroupIDs[in.Master.Name],
		VarIsServerGroupDiffFailureDomain: diff,
	}, err
}
