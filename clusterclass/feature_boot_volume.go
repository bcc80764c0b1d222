package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// Boot from a Cinder volume (boot_volume_size > 0, boot_volume_type,
// boot_volume_availability_zone); overridable per nodegroup.
const (
	VarBootVolume                 = "bootVolume"
	VarBootVolumeAvailabilityZone = "bootVolumeAvailabilityZone"
)

func bootVolume() Feature {
	return Feature{
		Name:   "boot_volume",
		Values: bootVolumeValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarBootVolume, clusterv1.JSONSchemaProps{
				Type:        "object",
				Description: "Root volume of the machines; size 0 boots from the flavor's disk.",
				Default:     jsonValue(map[string]any{"size": 0, "type": ""}),
				Properties: map[string]clusterv1.JSONSchemaProps{
					"size": intSchemaNoDefault("Size in GiB (boot_volume_size)."),
					"type": {Type: "string", Description: "Cinder volume type (boot_volume_type); empty for the Cinder default."},
				},
			}),
			variable(VarBootVolumeAvailabilityZone, optionalString("Availability zone of the root volumes (boot_volume_availability_zone).")),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "bootVolume",
			EnabledIf: `{{ gt .bootVolume.size 0.0 }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectAllMachines(),
				fromTemplate("add", "/spec/template/spec/rootVolume", `sizeGiB: {{ .bootVolume.size }}
{{- with .bootVolume.type }}
type: {{ . | toJson }}
{{- end }}
{{- with .bootVolumeAvailabilityZone }}
availabilityZone:
  name: {{ . | toJson }}
{{- end }}`))},
		}},
	}
}

func intSchemaNoDefault(desc string) clusterv1.JSONSchemaProps {
	zero := int64(0)
	return clusterv1.JSONSchemaProps{Type: "integer", Format: "int64", Minimum: &zero, Description: desc}
}

// bootVolumeValues: boot_volume_availability_zone, else availability_zone.
func bootVolumeValues(in *Inputs) (map[string]any, error) {
	size, err := in.Int(schemas.LabelBootVolumeSize)
	bootAZ := in.Labels[schemas.LabelBootVolumeAvailabilityZone]
	if bootAZ == "" {
		bootAZ = in.Labels[schemas.LabelAvailabilityZone]
	}
	return map[string]any{
		VarBootVolume:                 map[string]any{"size": size, "type": in.Labels[schemas.LabelBootVolumeType]},
		VarBootVolumeAvailabilityZone: bootAZ,
	}, err
}
