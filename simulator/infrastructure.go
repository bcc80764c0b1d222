package simulator

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// The CAPO kinds (infrastructure.cluster.x-k8s.io/v1beta1) are handled as
// unstructured objects: keel does not depend on CAPO's Go module, and the CRD
// schema installed in the management cluster validates them anyway.
const (
	infraGroup      = "infrastructure.cluster.x-k8s.io"
	infraAPIVersion = infraGroup + "/v1beta1"

	kindOpenStackCluster         = "OpenStackCluster"
	kindOpenStackMachine         = "OpenStackMachine"
	kindOpenStackMachineTemplate = "OpenStackMachineTemplate"
)

// Annotations CAPI puts on an infrastructure machine cloned from a template.
const (
	annotationClonedFromName      = "cluster.x-k8s.io/cloned-from-name"
	annotationClonedFromGroupKind = "cluster.x-k8s.io/cloned-from-groupkind"
)

func infraGVK(kind string) schema.GroupVersionKind {
	return schema.GroupVersionKind{Group: infraGroup, Version: "v1beta1", Kind: kind}
}

func newInfra(kind, namespace, name string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(infraGVK(kind))
	u.SetNamespace(namespace)
	u.SetName(name)
	return u
}

func newInfraList(kind string) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(infraGVK(kind + "List"))
	return l
}

func identityRef(secret string) map[string]any {
	return map[string]any{"type": "Secret", "name": secret, "cloudName": "default"}
}

// openStackClusterSpec is a minimal valid OpenStackCluster spec, shaped like
// the one the Magnum ClusterClass's template renders.
func openStackClusterSpec(identity string) map[string]any {
	return map[string]any{
		"identityRef":           identityRef(identity),
		"managedSecurityGroups": map[string]any{"allowAllInClusterTraffic": true},
	}
}

func openStackMachineTemplateSpec(m machineSpec, identity string) map[string]any {
	return map[string]any{"template": map[string]any{"spec": openStackMachineSpec(m, identity)}}
}

func openStackMachineSpec(m machineSpec, identity string) map[string]any {
	flavor := m.flavor
	if flavor == "" {
		flavor = "unknown" // the schema requires a flavor
	}
	return map[string]any{
		"flavor":      flavor,
		"image":       imageField(m.image),
		"identityRef": identityRef(identity),
	}
}

// v1beta1Condition is a condition in the Cluster API v1beta1 format CAPO
// v0.14 still uses.
func v1beta1Condition(typ string, ok bool, reason, severity, message, now string) map[string]any {
	c := map[string]any{"type": typ, "status": "True", "lastTransitionTime": now}
	if !ok {
		c["status"] = "False"
		c["reason"] = reason
		c["severity"] = severity
		c["message"] = message
	}
	return c
}

func infraRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: infraGroup, Kind: kind, Name: name}
}
