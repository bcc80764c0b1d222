package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarExternalNetworkID is the Neutron external network (template
// external_network_id, resolved to an ID at API time).
const VarExternalNetworkID = "externalNetworkId"

func externalNetwork() Feature {
	empty := ""
	return Feature{
		Name: "external_network",
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarExternalNetworkID, false, stringSchema("Neutron external network ID for routers and floating IPs.", &empty)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "externalNetworkId",
			EnabledIf: `{{ ne .externalNetworkId "" }}`,
			Definitions: []clusterv1.PatchDefinition{{
				Selector: selectInfraCluster(),
				JSONPatches: []clusterv1.JSONPatch{{
					Op: "add", Path: "/spec/template/spec/externalNetwork",
					ValueFrom: &clusterv1.JSONPatchValue{Template: `id: {{ .externalNetworkId }}`},
				}},
			}},
		}},
	}
}
