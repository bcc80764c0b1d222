package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// Nodegroup node labels and taints (Magnum 1.14 node_labels, node_taints;
// the reference ignores them). Both are set per nodegroup (variable
// overrides) and registered by the kubelet when the node joins: labels with
// --node-labels (the label catalogue allows only keys the kubelet may set
// on itself), taints with kubeadm's nodeRegistration.taints.
//
// Why not the MachineDeployment's metadata or Cluster API machine taints:
// Cluster API copies only node-role.kubernetes.io, node-restriction.kubernetes.io
// and node.cluster.x-k8s.io labels to Nodes, and machine taints need the
// alpha MachineTaintPropagation gate. The price: changing them rolls the
// nodegroup (a new KubeadmConfigTemplate), which `keel plan` shows.
const (
	VarNodeLabels = "nodeLabels"
	VarNodeTaints = "nodeTaints"
)

func nodeLabels() Feature {
	return Feature{
		Name:   "node_labels",
		Values: nodeLabelsValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarNodeLabels, optionalString("Kubelet --node-labels of the nodegroup (k=v,...); empty for none.")),
			variable(VarNodeTaints, clusterv1.JSONSchemaProps{
				Type:        "array",
				Description: "Taints the nodegroup's nodes register with.",
				Default:     jsonValue([]any{}),
				Items: &clusterv1.JSONSchemaProps{
					Type:     "object",
					Required: []string{"key", "effect"},
					Properties: map[string]clusterv1.JSONSchemaProps{
						"key":    {Type: "string"},
						"value":  {Type: "string"},
						"effect": {Type: "string", Enum: []apiJSON{*jsonValue("NoSchedule"), *jsonValue("PreferNoSchedule"), *jsonValue("NoExecute")}},
					},
				},
			}),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:        "nodeLabels",
				EnabledIf:   `{{ ne .nodeLabels "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectWorkerBootstrap(), argFromVariable(kctJoinKubelet, "node-labels", VarNodeLabels))},
			},
			{
				Name:      "nodeTaints",
				EnabledIf: `{{ gt (len .nodeTaints) 0 }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectWorkerBootstrap(),
					fromVariable("add", kctSpec+"/joinConfiguration/nodeRegistration/taints", VarNodeTaints))},
			},
		},
	}
}

// nodeLabelsValues: none at the cluster level; worker nodegroups override
// them with their own.
func nodeLabelsValues(*Inputs) (map[string]any, error) {
	return map[string]any{VarNodeLabels: "", VarNodeTaints: []any{}}, nil
}
