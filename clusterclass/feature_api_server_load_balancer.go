package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarAPIServerLoadBalancer configures the Octavia load balancer in front of
// the Kubernetes API (Magnum's master_lb_enabled and the octavia labels).
// provider, flavor and availabilityZone are immutable in CAPO; keel's label
// catalogue marks the labels immutable, so they never change after creation.
// allowedCIDRs (api_server_lb_allowed_cidrs) is mutable and applied in place.
const VarAPIServerLoadBalancer = "apiServerLoadBalancer"

func apiServerLoadBalancer() Feature {
	return Feature{
		Name:   "api_server_load_balancer",
		Values: apiServerLoadBalancerValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAPIServerLoadBalancer, clusterv1.JSONSchemaProps{
				Type:        "object",
				Description: "Octavia load balancer of the Kubernetes API.",
				Required:    []string{"enabled"},
				Default:     jsonValue(map[string]any{"enabled": false}),
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
			// CAPO: "to disable the load balancer, omit the field".
			EnabledIf: `{{ .apiServerLoadBalancer.enabled }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectInfraCluster(),
				// Empty optional fields are left out rather than sent as "".
				fromTemplate("add", "/spec/template/spec/apiServerLoadBalancer", `enabled: true
{{- with .apiServerLoadBalancer.provider }}
provider: {{ . | toJson }}
{{- end }}
{{- with .apiServerLoadBalancer.flavor }}
flavor: {{ . | toJson }}
{{- end }}
{{- with .apiServerLoadBalancer.availabilityZone }}
availabilityZone: {{ . | toJson }}
{{- end }}
{{- with .apiServerLoadBalancer.allowedCIDRs }}
allowedCIDRs: {{ . | toJson }}
{{- end }}`))},
		}},
	}
}

// apiServerLoadBalancerValues: api_server_lb_allowed_cidrs, else the
// Heat-era master_lb_allowed_cidrs.
func apiServerLoadBalancerValues(in *Inputs) (map[string]any, error) {
	lb := map[string]any{"enabled": in.Cluster.MasterLBEnabled}
	for k, label := range map[string]string{
		"provider": schemas.LabelOctaviaProvider, "flavor": schemas.LabelAPIServerLBFlavor, "availabilityZone": schemas.LabelAPIServerLBAvailabilityZone,
	} {
		if v := in.Labels[label]; v != "" {
			lb[k] = v
		}
	}
	cidrs := in.List(schemas.LabelAPIServerLBAllowedCIDRs)
	if len(cidrs) == 0 {
		cidrs = in.List(schemas.LabelMasterLBAllowedCIDRs)
	}
	if len(cidrs) > 0 {
		lb["allowedCIDRs"] = cidrs
	}
	return map[string]any{VarAPIServerLoadBalancer: lb}, nil
}
