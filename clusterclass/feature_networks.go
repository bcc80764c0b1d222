package clusterclass

import (
	"cmp"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// Network variables: either CAPO creates a network with one subnet
// (nodeCidr, dnsNameservers), or the cluster joins an existing network
// and/or subnet (fixed_network, fixed_subnet resolved to IDs at API time).
const (
	VarNodeCIDR       = "nodeCidr"
	VarDNSNameservers = "dnsNameservers"
	VarFixedNetworkID = "fixedNetworkId"
	VarFixedSubnetID  = "fixedSubnetId"
)

func networks() Feature {
	defaultCIDR := "10.0.0.0/24"
	return Feature{
		Name:   "networks",
		Values: networksValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarNodeCIDR, stringSchema("CIDR of the subnet CAPO creates when the cluster has no fixed network (fixed_subnet_cidr).", &defaultCIDR)),
			variable(VarDNSNameservers, stringListSchema("DNS servers of the subnet CAPO creates (template dns_nameserver).")),
			variable(VarFixedNetworkID, optionalString("Existing Neutron network of the nodes (fixed_network).")),
			variable(VarFixedSubnetID, optionalString("Existing Neutron subnet of the nodes (fixed_subnet).")),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name: "newNetworkConfig",
				// Fix over the reference: a fixed subnet without a fixed
				// network also means "existing network" (CAPO finds the
				// network from the subnet); the reference sent both
				// managedSubnets and subnets then.
				EnabledIf: `{{ and (eq .fixedNetworkId "") (eq .fixedSubnetId "") }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
					fromTemplate("add", "/spec/template/spec/managedSubnets", `- cidr: {{ .nodeCidr | toJson }}
{{- with .dnsNameservers }}
  dnsNameservers: {{ . | toJson }}
{{- end }}`))},
			},
			{
				Name:      "existingFixedNetworkIdConfig",
				EnabledIf: `{{ ne .fixedNetworkId "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
					fromTemplate("add", "/spec/template/spec/network", `{"id": {{ .fixedNetworkId | toJson }}}`))},
			},
			{
				Name:      "existingFixedSubnetIdConfig",
				EnabledIf: `{{ ne .fixedSubnetId "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
					fromTemplate("add", "/spec/template/spec/subnets", `[{"id": {{ .fixedSubnetId | toJson }}}]`))},
			},
		},
	}
}

// networksValues: the network keel created or looked up, else the
// cluster's, else the template's.
func networksValues(in *Inputs) (map[string]any, error) {
	c, t, f := &in.Cluster, &in.Template, &in.Facts
	return map[string]any{
		VarDNSNameservers: splitList(intent.Deref(t.DNSNameserver)),
		VarFixedNetworkID: cmp.Or(f.FixedNetworkID, intent.Deref(c.FixedNetwork), intent.Deref(t.FixedNetwork)),
		VarFixedSubnetID:  cmp.Or(f.FixedSubnetID, intent.Deref(c.FixedSubnet), intent.Deref(t.FixedSubnet)),
		VarNodeCIDR:       in.Labels[schemas.LabelFixedSubnetCIDR],
	}, nil
}
