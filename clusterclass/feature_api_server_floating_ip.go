package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarAPIServerFloatingIP is a pre-allocated floating IP for the API
// (api_server_floating_ip); empty lets CAPO allocate one.
const VarAPIServerFloatingIP = "apiServerFloatingIP"

func apiServerFloatingIP() Feature {
	return Feature{
		Name:   "api_server_floating_ip",
		Values: apiServerFloatingIPValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAPIServerFloatingIP, optionalString("Pre-allocated floating IP of the API; empty to let CAPO allocate one.")),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:        "apiServerFloatingIP",
			EnabledIf:   `{{ ne .apiServerFloatingIP "" }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(), fromVariable("add", "/spec/template/spec/apiServerFloatingIP", VarAPIServerFloatingIP))},
		}},
	}
}

func apiServerFloatingIPValues(in *Inputs) (map[string]any, error) {
	return map[string]any{VarAPIServerFloatingIP: in.Labels[schemas.LabelAPIServerFloatingIP]}, nil
}
