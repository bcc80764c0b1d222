package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// VarAPIServerPort is the template's apiserver_port: the port of the
// Kubernetes API on its load balancer (or floating IP) and on the
// control-plane nodes. The reference driver ignored it (always 6443).
//
// No single field carries the port end to end, so the patch sets each
// consumer (the compiler also sets the Cluster's clusterNetwork.apiServerPort,
// which Cluster API v1.14 reads nowhere):
//
//   - OpenStackCluster apiServerPort: CAPO creates the Octavia listener and
//     pool members on it and advertises host:port as controlPlaneEndpoint,
//     which Cluster API copies to the Cluster and kubeadm uses as
//     controlPlaneEndpoint (kubeconfigs, joins).
//   - KCP init and join localAPIEndpoint.bindPort: kube-apiserver's
//     --secure-port (CABPK does not derive it from the Cluster) and the port
//     KCP probes certificates on.
//   - a control-plane security group rule: CAPO's managed rule opens 6443
//     only, whatever the listener port.
//
// 6443 (the default) changes nothing, so clusters without the field keep
// their templates byte for byte. The port cannot move under a live endpoint
// (CAPO keeps the endpoint it advertised), so the API refuses changing it
// while a cluster uses the template.
const VarAPIServerPort = "apiServerPort"

// DefaultAPIServerPort is kubeadm's and CAPO's API port.
const DefaultAPIServerPort = 6443

func apiServerPort() Feature {
	lo, hi := int64(1024), int64(65535)
	return Feature{
		Name:   "api_server_port",
		Values: apiServerPortValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAPIServerPort, clusterv1.JSONSchemaProps{
				Type: "integer", Format: "int32", Minimum: &lo, Maximum: &hi,
				Description: "Port of the Kubernetes API: load balancer listener, advertised endpoint and kube-apiserver bind port (apiserver_port).",
				Default:     jsonValue(DefaultAPIServerPort),
			}),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "apiServerPort",
			// printf: the engine may hand numbers over as float64, which
			// Go templates will not compare with an int.
			EnabledIf: `{{ ne (printf "%v" .apiServerPort) "6443" }}`,
			Definitions: []clusterv1.PatchDefinition{
				definition(selectInfraCluster(),
					fromVariable("add", "/spec/template/spec/apiServerPort", VarAPIServerPort),
					fromTemplate("add", "/spec/template/spec/managedSecurityGroups/controlPlaneNodesSecurityGroupRules", `- name: Kubernetes API
  description: Kubernetes API on apiserver_port (CAPO opens 6443 only)
  direction: ingress
  etherType: IPv4
  protocol: tcp
  portRangeMin: {{ .apiServerPort }}
  portRangeMax: {{ .apiServerPort }}
  remoteIPPrefix: 0.0.0.0/0`),
				),
				definition(selectControlPlane(),
					fromTemplate("add", kcpSpec+"/initConfiguration/localAPIEndpoint", `{"bindPort": {{ .apiServerPort }}}`),
					fromTemplate("add", kcpSpec+"/joinConfiguration/controlPlane", `{"localAPIEndpoint": {"bindPort": {{ .apiServerPort }}}}`),
				),
			},
		}},
	}
}

// apiServerPortValues sets the port only when the template sets it: a
// cluster without it then renders exactly as before and stays valid on
// ClusterClasses that predate the variable.
func apiServerPortValues(in *Inputs) (map[string]any, error) {
	if in.Template.APIServerPort == nil {
		return nil, nil
	}
	return map[string]any{VarAPIServerPort: *in.Template.APIServerPort}, nil
}
