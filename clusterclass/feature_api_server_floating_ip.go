package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarAPIServerFloatingIP is a pre-allocated floating IP for the API
// (api_server_floating_ip); empty lets CAPO allocate one.
const VarAPIServerFloatingIP = "apiServerFloatingIP"

func apiServerFloatingIP() Feature {
	return Feature{
		Name: "api_server_floating_ip",
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
