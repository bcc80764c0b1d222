package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// Flavor variables: Nova flavor names (resolved from Magnum's name-or-ID at
// API time). flavor may be overridden per nodegroup.
const (
	VarControlPlaneFlavor = "controlPlaneFlavor"
	VarFlavor             = "flavor"
)

func flavors() Feature {
	return Feature{
		Name: "flavors",
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarControlPlaneFlavor, true, stringSchema("Nova flavor of the control-plane machines.", nil)),
			variable(VarFlavor, true, stringSchema("Nova flavor of the worker machines (overridable per nodegroup).", nil)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "flavors",
			Definitions: []clusterv1.PatchDefinition{
				{Selector: selectControlPlaneMachines(), JSONPatches: []clusterv1.JSONPatch{
					fromVariable("replace", "/spec/template/spec/flavor", VarControlPlaneFlavor),
				}},
				{Selector: selectWorkerMachines(), JSONPatches: []clusterv1.JSONPatch{
					fromVariable("replace", "/spec/template/spec/flavor", VarFlavor),
				}},
			},
		}},
	}
}
