package clusterclass

import (
	"fmt"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// VarCARotation is the cluster's CA rotation marker
// (intent.CARotation.Marker: "<generation>-<phase>", "" when never
// rotated). The CA bundles themselves reach the machines through the -ca
// Secret, which Cluster API reads only when it bootstraps a machine: this
// variable is what makes every phase roll every machine.
const VarCARotation = "caRotation"

// Where the marker lands on every machine, and the sign phase's fix-up of
// the API server's certificate.
const (
	CARotationMarkerPath = "/etc/kubernetes/keel/ca-rotation"
	// kubeadm signs apiserver.crt with the first certificate of ca.crt
	// (in the sign phase the new CA cross-signed by the old one) but
	// writes only the leaf: it reads intermediates from a certificate
	// file, never appends them. Appending the cross-signed certificate
	// lets clients that trust only the old CA verify the API server;
	// kube-apiserver reloads its serving certificate from the file.
	appendCrossToAPIServerCert = `sed -n '1,/-----END CERTIFICATE-----/p' /etc/kubernetes/pki/ca.crt >> /etc/kubernetes/pki/apiserver.crt`
)

func caRotation() Feature {
	return Feature{
		Name:   "ca_rotation",
		Values: caRotationValues,
		Variables: []clusterv1.ClusterClassVariable{
			variable(VarCARotation, optionalString(`CA rotation marker, "<generation>-<phase>"; empty for a cluster never rotated.`)),
		},
		Patches: []clusterv1.ClusterClassPatch{
			{
				Name: "caRotationMarker",
				// A changed file changes the KubeadmControlPlane's and the
				// MachineDeployments' bootstrap templates, so Cluster API
				// replaces every machine, which then bootstraps from the
				// phase's -ca Secret.
				EnabledIf: `{{ ne .caRotation "" }}`,
				Definitions: []clusterv1.PatchDefinition{
					definition(selectControlPlane(), caRotationMarkerFile(kcpSpec+"/files/-")),
					definition(selectWorkerBootstrap(), caRotationMarkerFile(kctSpec+"/files/-")),
				},
			},
			{
				Name:      "caRotationServeCrossSigned",
				EnabledIf: `{{ hasSuffix "-sign" .caRotation }}`,
				// The base template has no postKubeadmCommands (and no other
				// feature writes them): this patch creates the list.
				Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(),
					withValue("add", kcpSpec+"/postKubeadmCommands", []string{appendCrossToAPIServerCert}))},
			},
		},
	}
}

// caRotationMarkerFile appends the marker file, in plain text.
func caRotationMarkerFile(path string) clusterv1.JSONPatch {
	return fromTemplate("add", path, fmt.Sprintf(
		`{"path": %q, "owner": "root:root", "permissions": "0644", "content": {{ .caRotation | toJson }}}`, CARotationMarkerPath))
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
