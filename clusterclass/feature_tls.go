package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// TLS of the API server and kubelets: cipher suites
// (api_server_tls_cipher_suites, kubelet_tls_cipher_suites) and the API
// server certificate's extra names (api_server_cert_sans).
const (
	VarAPIServerTLSCipherSuites = "apiServerTLSCipherSuites"
	VarKubeletTLSCipherSuites   = "kubeletTLSCipherSuites"
	VarAPIServerSANs            = "apiServerSANs"
)

func tls() Feature {
	return Feature{
		Name:   "tls",
		Values: tlsValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarAPIServerTLSCipherSuites, optionalString("Comma-separated TLS cipher suites of kube-apiserver; empty for Go's defaults.")),
			variable(VarKubeletTLSCipherSuites, optionalString("Comma-separated TLS cipher suites of the kubelets; empty for Go's defaults.")),
			// A list, where the reference passed pre-rendered YAML text.
			variable(VarAPIServerSANs, stringListSchema("Extra subject alternative names of the API server certificate.")),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name:        "apiServerTLSCipherSuites",
				EnabledIf:   `{{ ne .apiServerTLSCipherSuites "" }}`,
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), argFromVariable(kcpAPIServerArgs, "tls-cipher-suites", VarAPIServerTLSCipherSuites))},
			},
			{
				Name:      "kubeletTLSCipherSuites",
				EnabledIf: `{{ ne .kubeletTLSCipherSuites "" }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(),
						argFromVariable(kcpInitKubelet, "tls-cipher-suites", VarKubeletTLSCipherSuites),
						argFromVariable(kcpJoinKubelet, "tls-cipher-suites", VarKubeletTLSCipherSuites)),
					definition(selectWorkerBootstrap(), argFromVariable(kctJoinKubelet, "tls-cipher-suites", VarKubeletTLSCipherSuites)),
				},
			},
			{
				Name: "apiServerSANs",
				// The in-cluster names of the API (the proxy of
				// magnum-cluster-api-proxy reaches it as a Service of the
				// management cluster). Fix over the reference: the last name
				// uses the cluster's DNS domain, not a hard-coded
				// cluster.local.
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(),
					fromTemplate("add", kcpAPIServer+"/certSANs", `{{- $name := .builtin.cluster.name }}{{ $ns := .builtin.cluster.namespace }}
{{- $domain := "cluster.local" }}{{ with .builtin.cluster.network }}{{ with .serviceDomain }}{{ $domain = . }}{{ end }}{{ end }}
- {{ $name }}
- {{ $name }}.{{ $ns }}
- {{ $name }}.{{ $ns }}.svc
- {{ $name }}.{{ $ns }}.svc.{{ $domain }}
{{- range .apiServerSANs }}
- {{ . | toJson }}
{{- end }}`))},
			},
		},
	}
}

func tlsValues(in *Inputs) (map[string]any, error) {
	return map[string]any{
		VarAPIServerSANs:            in.List(schemas.LabelAPIServerCertSans),
		VarAPIServerTLSCipherSuites: in.Labels[schemas.LabelAPIServerTLSCipherSuites],
		VarKubeletTLSCipherSuites:   in.Labels[schemas.LabelKubeletTLSCipherSuites],
	}, nil
}
