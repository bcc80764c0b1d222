package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
)

// VarExternalNetworkID is the Neutron external network (template
// external_network_id, resolved to an ID at API time when OpenStack is
// reachable; a name otherwise, passed to CAPO as a name filter).
const VarExternalNetworkID = "externalNetworkId"

func externalNetwork() Feature {
	return Feature{
		Name:   "external_network",
		Values: externalNetworkValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarExternalNetworkID, optionalString("Neutron external network ID for routers and floating IPs; empty lets CAPO pick the only external network.")),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "externalNetworkId",
			EnabledIf: `{{ ne .externalNetworkId "" }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
				fromTemplate("add", "/spec/template/spec/externalNetwork", idOrName(VarExternalNetworkID)))},
		}},
	}
}

func externalNetworkValues(in *Inputs) (map[string]any, error) {
	return map[string]any{VarExternalNetworkID: in.Facts.ExternalNetwork(intent.Deref(in.Template.ExternalNetworkID))}, nil
}
