package simulator

import (
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// The CAPO kinds (infrastructure.cluster.x-k8s.io/v1beta1), written with
// CAPO's typed API, as CAPO itself would write them.
const (
	infraGroup = "infrastructure.cluster.x-k8s.io"

	kindOpenStackCluster         = "OpenStackCluster"
	kindOpenStackMachine         = "OpenStackMachine"
	kindOpenStackMachineTemplate = "OpenStackMachineTemplate"
)

// Annotations CAPI puts on an infrastructure machine cloned from a template.
const (
	annotationClonedFromName      = "cluster.x-k8s.io/cloned-from-name"
	annotationClonedFromGroupKind = "cluster.x-k8s.io/cloned-from-groupkind"
)

func identityRef(secret string) *infrav1.OpenStackIdentityReference {
	return &infrav1.OpenStackIdentityReference{Type: "Secret", Name: secret, CloudName: "default"}
}

// openStackClusterSpec is a minimal valid OpenStackCluster spec, shaped like
// the one the Magnum ClusterClass's template renders.
func openStackClusterSpec(identity string) infrav1.OpenStackClusterSpec {
	return infrav1.OpenStackClusterSpec{
		IdentityRef:           *identityRef(identity),
		ManagedSecurityGroups: &infrav1.ManagedSecurityGroups{AllowAllInClusterTraffic: true},
	}
}

func openStackMachineSpec(m machineSpec, identity string) infrav1.OpenStackMachineSpec {
	flavor := m.flavor
	if flavor == "" {
		flavor = "unknown" // the schema requires a flavor
	}
	return infrav1.OpenStackMachineSpec{
		Flavor:      ptr.To(flavor),
		Image:       imageParam(m.image),
		IdentityRef: identityRef(identity),
	}
}

// v1beta1Condition is a condition in the Cluster API v1beta1 format CAPO
// v0.14 still uses.
func v1beta1Condition(typ string, ok bool, reason string, severity clusterv1beta1.ConditionSeverity, message string) clusterv1beta1.Condition {
	c := clusterv1beta1.Condition{Type: clusterv1beta1.ConditionType(typ), Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}
	if !ok {
		c.Status = corev1.ConditionFalse
		c.Reason = reason
		c.Severity = severity
		c.Message = message
	}
	return c
}

func infraRef(kind, name string) clusterv1.ContractVersionedObjectReference {
	return clusterv1.ContractVersionedObjectReference{APIGroup: infraGroup, Kind: kind, Name: name}
}
