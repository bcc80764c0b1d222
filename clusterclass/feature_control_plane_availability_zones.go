package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarControlPlaneAvailabilityZones spreads the control plane over Nova
// availability zones (control_plane_availability_zones); empty lets CAPO use
// every zone it finds.
const VarControlPlaneAvailabilityZones = "controlPlaneAvailabilityZones"

func controlPlaneAvailabilityZones() Feature {
	return Feature{
		Name:   "control_plane_availability_zones",
		Values: controlPlaneAvailabilityZonesValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarControlPlaneAvailabilityZones, stringListSchema("Availability zones of the control-plane machines; empty for all.")),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "controlPlaneAvailabilityZones",
			// The reference tested (index . 0) != "" on a [""] list; keel
			// sends an empty list instead and tests its length.
			EnabledIf: `{{ gt (len .controlPlaneAvailabilityZones) 0 }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
				fromVariable("add", "/spec/template/spec/controlPlaneAvailabilityZones", VarControlPlaneAvailabilityZones))},
		}},
	}
}

func controlPlaneAvailabilityZonesValues(in *Inputs) (map[string]any, error) {
	return map[string]any{VarControlPlaneAvailabilityZones: in.List(schemas.LabelControlPlaneAvailabilityZones)}, nil
}
