package clusterclass

import (
	"cmp"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
)

// Flavor variables: Nova flavor names (resolved from Magnum's name-or-ID at
// API time). flavor may be overridden per nodegroup; a change rolls the
// machines that use it (a new OpenStackMachineTemplate).
const (
	VarControlPlaneFlavor = "controlPlaneFlavor"
	VarFlavor             = "flavor"
)

func flavors() Feature {
	return Feature{
		Name:   "flavors",
		Values: flavorsValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarControlPlaneFlavor, stringSchema("Nova flavor of the control-plane machines.", nil)),
			variable(VarFlavor, stringSchema("Nova flavor of the worker machines (overridable per nodegroup).", nil)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "flavors",
			Definitions: []clusterv1.PatchDefinition{
				definition(selectControlPlaneMachines(), fromVariable("replace", "/spec/template/spec/flavor", VarControlPlaneFlavor)),
				definition(selectWorkerMachines(), fromVariable("replace", "/spec/template/spec/flavor", VarFlavor)),
			},
		}},
	}
}

// flavorsValues: the control plane's flavor is the cluster's
// master_flavor_id, else its master nodegroup's, else the template's.
func flavorsValues(in *Inputs) (map[string]any, error) {
	c, t, f := &in.Cluster, &in.Template, &in.Facts
	return map[string]any{
		VarControlPlaneFlavor: f.FlavorName(cmp.Or(intent.Deref(c.MasterFlavorID), intent.Deref(in.Master.FlavorID), intent.Deref(t.MasterFlavorID))),
		VarFlavor:             f.FlavorName(cmp.Or(intent.Deref(c.FlavorID), intent.Deref(t.FlavorID))),
	}, nil
}
