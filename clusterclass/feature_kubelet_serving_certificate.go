package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarEnableKubeletServingCertificateVerification makes kubelets request
// serving certificates from the cluster CA and kube-apiserver verify them
// (kubelet_serving_cert_verification_enabled; variable 40 of the reference
// v0.39). The kubelet-serving CSRs need an approver in the cluster (an addon):
// until one approves them, logs/exec/port-forward fail.
const VarEnableKubeletServingCertificateVerification = "enableKubeletServingCertificateVerification"

func kubeletServingCertificate() Feature {
	return Feature{
		Name:   "kubelet_serving_certificate",
		Values: kubeletServingCertificateValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarEnableKubeletServingCertificateVerification, boolSchema("Kubelet serving certificates signed by the cluster CA and verified by kube-apiserver.", false)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "kubeletServingCertificateVerification",
			EnabledIf: `{{ .enableKubeletServingCertificateVerification }}`,
			Definitions: []clusterv1.PatchDefinition{
				definition(selectControlPlane(),
					argValue(kcpAPIServerArgs, "kubelet-certificate-authority", "/etc/kubernetes/pki/ca.crt"),
					argValue(kcpInitKubelet, "rotate-server-certificates", "true"),
					argValue(kcpJoinKubelet, "rotate-server-certificates", "true"),
				),
				definition(selectWorkerBootstrap(), argValue(kctJoinKubelet, "rotate-server-certificates", "true")),
			},
		}},
	}
}

func kubeletServingCertificateValues(in *Inputs) (map[string]any, error) {
	verify, err := in.Bool(schemas.LabelKubeletServingCertVerificationEnabled)
	return map[string]any{VarEnableKubeletServingCertificateVerification: verify}, err
}
