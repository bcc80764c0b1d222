package clusterclass

import clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

// cloudProvider passes --cloud-provider=external to kube-apiserver before
// Kubernetes 1.33, which removed the flag. No variable: the condition is the
// control plane's version.
func cloudProvider() Feature {
	return Feature{
		Name: "cloud_provider",
		Patches: []clusterv1.ClusterClassPatch{{
			Name: "cloudProvider",
			// "-0" so that pre-releases of 1.33 count as 1.33.
			EnabledIf:   `{{ semverCompare "<1.33.0-0" .builtin.controlPlane.version }}`,
			Definitions: []clusterv1.PatchDefinition{definition(selectControlPlane(), argValue(kcpAPIServerArgs, "cloud-provider", "external"))},
		}},
	}
}
