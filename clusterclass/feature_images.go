package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarImageUUID is the Glance image of the machines (overridable per
// nodegroup): its UUID, resolved at API time, or its name when OpenStack
// was not reachable then (passed to CAPO as a name filter).
const VarImageUUID = "imageUUID"

func images() Feature {
	return Feature{
		Name:   "images",
		Values: imagesValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarImageUUID, stringSchema("Glance image UUID of the machines (overridable per nodegroup).", nil)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "images",
			Definitions: []clusterv1.PatchDefinition{
				definition(selectAllMachines(), fromTemplate("replace", "/spec/template/spec/image", idOrName(VarImageUUID))),
			},
		}},
	}
}

func imagesValues(in *Inputs) (map[string]any, error) {
	return map[string]any{VarImageUUID: in.Facts.ImageUUID(in.Template.ImageID)}, nil
}
