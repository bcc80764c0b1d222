package clusterclass

import (
	"fmt"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// VarCARotation is the cluster's CA rotation marker
// (intent.CARotation.Marker: "<generation>-<phase>", "" when never
// rotated). The CA bundles themselves reach the machines through the -ca
// Secret, which Cluster API reads only when it bootstraps a machine: the
// marker, written to a file, is what makes a phase roll the machines.
//
// One variable serves both the control plane and the workers: the
// control plane's file holds the marker itself and rolls in every phase;
// the workers' file holds it with "-sign" read as "-trust", so that the
// sign phase, which changes only what the control plane runs, replaces no
// worker (their rendered template stays the trust phase's).
//
// There is no cross-signed certificate (internal/pki ca_rotation.go:
// keel's CAs carry pathlen:0, and Go's verifier refuses the chain): the
// -ca Secret is old ‖ new with the old key in both the trust and sign
// phases, so the API servers keep serving what the old CA signed. In the
// sign phase the control plane gets the new CA from the
// <cluster>-ca-signer Secret and kube-controller-manager signs with it, so
// that the kubelets bootstrapped in the finish rollout hold certificates of
// the new CA.
const VarCARotation = "caRotation"

// Files the rotation writes on the machines. The signer lands in
// /etc/kubernetes/pki, which kubeadm mounts into kube-controller-manager's
// static pod.
const (
	CARotationMarkerPath = "/etc/kubernetes/keel/ca-rotation"
	CASignerCertPath     = "/etc/kubernetes/pki/ca-signer.crt"
	CASignerKeyPath      = "/etc/kubernetes/pki/ca-signer.key"
	// caSignerSecret is compiler.CASignerPurpose's Secret, which compiler
	// renders in the sign phase only.
	caSignerSecret = "{{ .builtin.cluster.name }}-ca-signer"
)

func caRotation() Feature {
	return Feature{
		Name:   "ca_rotation",
		Values: caRotationValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarCARotation, optionalString(`CA rotation marker, "<generation>-<phase>"; empty for a cluster never rotated.`)),
		},
		Patches: []clusterv1.ClusterClassPatch{caRotationMarker(), caRotationSigner()},
	}
}

// caRotationMarker adds the marker file. A changed file changes the
// KubeadmControlPlane's or the MachineDeployments' bootstrap template, so
// Cluster API replaces those machines, which then bootstrap from the
// phase's -ca Secret.
func caRotationMarker() clusterv1.ClusterClassPatch {
	return clusterv1.ClusterClassPatch{
		Name:      "caRotationMarker",
		EnabledIf: `{{ ne .caRotation "" }}`,
		Definitions: []clusterv1.PatchDefinition{
			definition(selectControlPlane(), caRotationMarkerFile(kcpSpec+"/files/-", `.caRotation`)),
			definition(selectWorkerBootstrap(), caRotationMarkerFile(kctSpec+"/files/-", `.caRotation | replace "-sign" "-trust"`)),
		},
	}
}

// caRotationMarkerFile appends the marker file, in plain text, its content
// the template pipeline marker.
func caRotationMarkerFile(path, marker string) clusterv1.JSONPatch {
	return fromTemplate("add", path, fmt.Sprintf(
		`{"path": %q, "owner": "root:root", "permissions": "0644", "content": {{ %s | toJson }}}`, CARotationMarkerPath, marker))
}

// caRotationSigner, in the sign phase only, delivers the new CA to the
// control plane and points kube-controller-manager's signer at it
// (kubeadm's default is ca.crt/ca.key, the old CA until finish).
func caRotationSigner() clusterv1.ClusterClassPatch {
	return clusterv1.ClusterClassPatch{
		Name:      "caRotationSigner",
		EnabledIf: `{{ hasSuffix "-sign" .caRotation }}`,
		Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(),
			caSignerFile(CASignerCertPath, "0644", "tls.crt"),
			caSignerFile(CASignerKeyPath, "0600", "tls.key"),
			argValue(kcpControllerManagerArgs, "cluster-signing-cert-file", CASignerCertPath),
			argValue(kcpControllerManagerArgs, "cluster-signing-key-file", CASignerKeyPath),
		)},
	}
}

// caSignerFile appends a file CABPK fills from a key of the ca-signer
// Secret.
func caSignerFile(path, permissions, key string) clusterv1.JSONPatch {
	return fromTemplate("add", kcpSpec+"/files/-", fmt.Sprintf(
		`{"path": %q, "owner": "root:root", "permissions": %q, "contentFrom": {"secret": {"name": %q, "key": %q}}}`,
		path, permissions, caSignerSecret, key))
}

// caRotationValues sets the marker only once the cluster has been rotated
// (a nil rotation's marker is "", the class default), as apiServerPort and
// insecureRegistry do: clusters never rotated render byte for byte as
// before and stay valid on ClusterClasses that predate the variable.
func caRotationValues(in *Inputs) (map[string]any, error) {
	m := in.Cluster.CARotation.Marker()
	if m == "" {
		return nil, nil
	}
	return map[string]any{VarCARotation: m}, nil
}
