package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarAPIServerLoadBalancer configures the Octavia load balancer in front of
// the Kubernetes API (Magnum's master_lb_enabled and the octavia labels).
const VarAPIServerLoadBalancer = "apiServerLoadBalancer"

func apiServerLoadBalancer() Feature {
	return Feature{
		Name: "api_server_load_balancer",
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAPIServerLoadBalancer, true, clusterv1.JSONSchemaProps{
				Type:        "object",
				Description: "Octavia load balancer of the Kubernetes API.",
				Required:    []string{"enabled"},
				Properties: map[string]clusterv1.JSONSchemaProps{
					"enabled":          {Type: "boolean", Description: "Whether the API has a load balancer (master_lb_enabled)."},
					"provider":         {Type: "string", Description: "Octavia provider (octavia_provider)."},
					"flavor":           {Type: "string", Description: "Octavia flavor (api_server_lb_flavor)."},
					"availabilityZone": {Type: "string", Description: "Octavia availability zone (api_server_lb_availability_zone)."},
					"allowedCIDRs": {Type: "array", Items: &clusterv1.JSONSchemaProps{Type: "string"},
						Description: "CIDRs allowed to reach the API (api_server_lb_allowed_cidrs); empty allows all."},
				},
			}),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "apiServerLoadBalancer",
			Definitions: []clusterv1.PatchDefinition{{
				Selector: selectInfraCluster(),
				JSONPatches: []clusterv1.JSONPatch{
					fromVariable("add", "/spec/template/spec/apiServerLoadBalancer", VarAPIServerLoadBalancer),
				},
			}},
		}},
	}
}
