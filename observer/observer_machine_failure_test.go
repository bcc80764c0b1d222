package observer

import (
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// A Machine's terminal failure is what Cluster API v1.14 copies from CAPO
// (status.deprecated.v1beta1.failureMessage), told with the Machine's Ready
// condition when it is False; phase Failed, which its v1beta2 controllers
// no longer set, is not a failure on its own.
func TestMachineFailure(t *testing.T) {
	const capoMessage = `Failure detected from referenced resource infrastructure.cluster.x-k8s.io/v1beta1, Kind=OpenStackMachine with name "m1": instance state ERROR is unexpected`
	failed := func(msg string) *clusterv1.MachineDeprecatedStatus {
		return &clusterv1.MachineDeprecatedStatus{V1Beta1: &clusterv1.MachineV1Beta1DeprecatedStatus{FailureMessage: ptr.To(msg)}}
	}
	notReady := metav1.Condition{Type: clusterv1.MachineReadyCondition, Status: metav1.ConditionFalse, Reason: "NotReady",
		Message: "* InfrastructureReady: Instance is in ERROR state"}
	for _, tc := range []struct {
		name   string
		status clusterv1.MachineStatus
		want   string
	}{
		{"running", clusterv1.MachineStatus{Phase: string(clusterv1.MachinePhaseRunning)}, ""},
		{"phase Failed alone", clusterv1.MachineStatus{Phase: string(clusterv1.MachinePhaseFailed)}, ""},
		{"deprecated v1beta1 without a message", clusterv1.MachineStatus{Deprecated: &clusterv1.MachineDeprecatedStatus{V1Beta1: &clusterv1.MachineV1Beta1DeprecatedStatus{}}}, ""},
		{"CAPO's failure, Ready False", clusterv1.MachineStatus{Deprecated: failed(capoMessage), Conditions: []metav1.Condition{notReady}},
			"Machine m1 failed: NotReady: * InfrastructureReady: Instance is in ERROR state"},
		{"CAPO's failure, no Ready condition yet", clusterv1.MachineStatus{Deprecated: failed(capoMessage)},
			"Machine m1 failed: " + capoMessage},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := &clusterv1.Machine{Status: tc.status}
			m.Name = "m1"
			if got := machineFailure(m); got != tc.want {
				t.Errorf("failure = %q, want %q", got, tc.want)
			}
		})
	}
}
