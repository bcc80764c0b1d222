package observer

import (
	"strings"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// A Machine explains itself with its most specific condition: the server,
// then the Node (which Cluster API reports as Unknown while it waits for a
// Node with the machine's providerID), then the Ready summary.
func TestMachineCause(t *testing.T) {
	cond := func(typ string, st metav1.ConditionStatus, reason, msg string) metav1.Condition {
		return metav1.Condition{Type: typ, Status: st, Reason: reason, Message: msg}
	}
	for _, tc := range []struct {
		name  string
		conds []metav1.Condition
		want  string // prefix; "" means no cause
	}{
		{"up", []metav1.Condition{cond(clusterv1.MachineReadyCondition, metav1.ConditionTrue, "Ready", "")}, ""},
		{"server failed", []metav1.Condition{
			cond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionFalse, "InstanceStateError", "Instance is in ERROR state"),
			cond(clusterv1.MachineNodeHealthyCondition, metav1.ConditionUnknown, "InspectionFailed", "Waiting for a Node"),
		}, "Machine m1: InfrastructureReady: InstanceStateError: Instance is in ERROR state"},
		{"no providerID yet", []metav1.Condition{
			cond(clusterv1.MachineInfrastructureReadyCondition, metav1.ConditionTrue, "Ready", ""),
			cond(clusterv1.MachineReadyCondition, metav1.ConditionUnknown, "ReadyUnknown", "* NodeHealthy: Waiting for a Node with spec.providerID openstack:///x to exist"),
			cond(clusterv1.MachineNodeHealthyCondition, metav1.ConditionUnknown, "InspectionFailed", "Waiting for a Node with spec.providerID openstack:///x to exist"),
		}, "Machine m1: NodeHealthy: InspectionFailed: Waiting for a Node with spec.providerID openstack:///x to exist (the OpenStack cloud controller manager sets it"},
		{"ready unknown alone says nothing", []metav1.Condition{
			cond(clusterv1.MachineReadyCondition, metav1.ConditionUnknown, "ReadyUnknown", "something"),
		}, ""},
		{"not ready", []metav1.Condition{
			cond(clusterv1.MachineReadyCondition, metav1.ConditionFalse, "NotReady", "* NodeHealthy: Node is not ready"),
		}, "Machine m1: Ready: NotReady"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &clusterv1.Machine{}
			m.Name = "m1"
			m.Status.Conditions = tc.conds
			got := machineCause(m)
			if (tc.want == "") != (got == "") || !strings.HasPrefix(got, tc.want) {
				t.Fatalf("cause = %q, want prefix %q", got, tc.want)
			}
		})
	}
}
