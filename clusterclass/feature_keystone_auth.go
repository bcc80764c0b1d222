package clusterclass

import (
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/schemas"
)

// VarEnableKeystoneAuth points kube-apiserver's token authentication and
// authorization webhooks at k8s-keystone-auth (keystone_auth_enabled), which
// runs on every control-plane node (host network, 127.0.0.1:8443; the
// webhook kubeconfig and its volume are in the base template). The
// DaemonSet is addons/k8s-keystone-auth, delivered by the cluster's <uuid>
// ClusterResourceSet; compiler's TestKeystoneAuthListensWhereAPIServerCalls
// keeps the address here and there the same.
//
// The reference kustomized the kube-apiserver static pod in
// postKubeadmCommands; keel passes the same flags as extraArgs, so kubeadm
// owns the manifest and upgrades keep the flags. Until the DaemonSet runs,
// the webhooks fail and the union authenticator/authorizer fall through to
// certificates and RBAC, so kubeadm init is unaffected.
const VarEnableKeystoneAuth = "enableKeystoneAuth"

func keystoneAuth() Feature {
	return Feature{
		Name:   "keystone_auth",
		Values: keystoneAuthValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarEnableKeystoneAuth, boolSchema("Authenticate and authorize API requests against Keystone.", true)),
		},
		Patches: []clusterv1.ClusterClassPatch{{
			Name:      "keystoneAuth",
			EnabledIf: `{{ .enableKeystoneAuth }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(),
				argValue(kcpAPIServerArgs, "authentication-token-webhook-config-file", WebhookConfigPath),
				argValue(kcpAPIServerArgs, "authorization-webhook-config-file", WebhookConfigPath),
				argValue(kcpAPIServerArgs, "authorization-mode", "Node,Webhook,RBAC"),
			)},
		}},
	}
}

func keystoneAuthValues(in *Inputs) (map[string]any, error) {
	enabled, err := in.Bool(schemas.LabelKeystoneAuthEnabled)
	return map[string]any{VarEnableKeystoneAuth: enabled}, err
}
