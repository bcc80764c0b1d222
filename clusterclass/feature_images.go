package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarImageUUID is the Glance image UUID of the machines (overridable per
// nodegroup).
const VarImageUUID = "imageUUID"

func images() Feature {
	return Feature{
		Name: "images",
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarImageUUID, stringSchema("Glance image UUID of the machines (overridable per nodegroup).", nil)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "images",
			Definitions: []clusterv1.PatchDefinition{
				definition(selectAllMachines(), fromVariable("replace", "/spec/template/spec/image/id", VarImageUUID)),
			},
		}},
	}
}
