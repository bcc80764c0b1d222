package observer

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	capoerrors "sigs.k8s.io/cluster-api-provider-openstack/pkg/utils/errors"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"

	"github.com/openkeel/keel/internal/kube"
)

// How the real CAPO v0.14.7 reports a server that cannot come up (seen on
// the real OpenStack), and the failure keel reports for each:
//   - Nova refuses the create (a quota exceeded): the OpenStackServer is in
//     ERROR, InstanceCreateFailed with Nova's answer;
//   - Nova creates the server and puts it in ERROR (no valid host): the
//     OpenStackServer is in ERROR, InstanceStateError;
//     in both the OpenStackMachine just waits, without a failure, and keel
//     fails the operation with the OpenStackServer's words;
//   - a server that was ACTIVE goes to ERROR: the OpenStackMachine fails
//     with "instance state 0xc… is unexpected" (CAPO prints a pointer),
//     which keel reads as the state it points to.
func TestOpenStackServerFaultNamesTheFailure(t *testing.T) {
	const fault = "Quota exceeded for instances: Requested 1, but already used 1 of 1 instances"
	for _, tc := range []struct {
		name            string
		serverCondition clusterv1beta1.Condition
		machineFailure  string // the OpenStackMachine's failureMessage, or none
		want            string // with NAME for the server's and machine's name
	}{{
		name: "create refused",
		serverCondition: clusterv1beta1.Condition{Type: infrav1.InstanceReadyCondition, Status: corev1.ConditionFalse,
			Severity: clusterv1beta1.ConditionSeverityError, Reason: infrav1.InstanceCreateFailedReason, Message: fault},
		want: "OpenStackServer NAME failed: InstanceReady: InstanceCreateFailed: " + fault,
	}, {
		name: "server in ERROR",
		serverCondition: clusterv1beta1.Condition{Type: infrav1.InstanceReadyCondition, Status: corev1.ConditionFalse,
			Severity: clusterv1beta1.ConditionSeverityError, Reason: infrav1.InstanceStateErrorReason},
		want: "OpenStackServer NAME failed: InstanceReady: InstanceStateError",
	}, {
		name: "ACTIVE then ERROR",
		serverCondition: clusterv1beta1.Condition{Type: infrav1.InstanceReadyCondition, Status: corev1.ConditionFalse,
			Severity: clusterv1beta1.ConditionSeverityError, Reason: infrav1.InstanceStateErrorReason},
		machineFailure: "instance state 0xc000a1b2c3 is unexpected",
		want:           "OpenStackMachine NAME failed: UpdateError: instance state ERROR is unexpected",
	}} {
		t.Run(tc.name, func(t *testing.T) {
			cluster := "kube-oss" + strings.ToLower(strings.ReplaceAll(tc.name, " ", "")[:4])
			name := cluster + "-md-0-abcde"
			sink := startObserver(t)
			newCluster(t, cluster, "uuid-"+cluster)
			waitFirst(t, sink, "uuid-"+cluster)
			createFailedServer(t, cluster, name, tc.serverCondition, tc.machineFailure)
			want := strings.ReplaceAll(tc.want, "NAME", name)
			deadline := time.Now().Add(10 * time.Second)
			for got := ""; got != want; {
				if o := sink.get("uuid-" + cluster); o != nil {
					got = o.Failure
				}
				if time.Now().After(deadline) {
					t.Fatalf("failure %q, want %q", got, want)
				}
				time.Sleep(20 * time.Millisecond)
			}
		})
	}
}

// createFailedServer writes what CAPO writes for a server in ERROR: the
// OpenStackServer with the condition, the OpenStackMachine of the same
// name with the failure message (if any).
func createFailedServer(t *testing.T, cluster, name string, cond clusterv1beta1.Condition, machineFailure string) {
	t.Helper()
	ctx := context.Background()
	labels := map[string]string{labelClusterName: cluster}
	id := infrav1.OpenStackIdentityReference{Type: "Secret", Name: cluster + "-cloud-config", CloudName: "default"}
	srv := &infrav1alpha1.OpenStackServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name, Labels: labels},
		Spec: infrav1alpha1.OpenStackServerSpec{
			Flavor: ptr.To("m1.small"), Image: infrav1.ImageParam{ID: ptr.To("c9f0c6c5-7d4d-4f54-9c1f-000000000001")},
			IdentityRef: id, Ports: []infrav1.PortOpts{{}},
		},
	}
	if err := env.Client.Create(ctx, srv); err != nil {
		t.Fatal(err)
	}
	cond.LastTransitionTime = metav1.Now()
	srv.Status = infrav1alpha1.OpenStackServerStatus{InstanceState: ptr.To(infrav1.InstanceStateError), Conditions: clusterv1beta1.Conditions{cond}}
	if err := env.Client.Status().Update(ctx, srv); err != nil {
		t.Fatal(err)
	}
	osm := &infrav1.OpenStackMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name, Labels: labels},
		Spec:       infrav1.OpenStackMachineSpec{Flavor: ptr.To("m1.small"), Image: srv.Spec.Image},
	}
	if err := env.Client.Create(ctx, osm); err != nil {
		t.Fatal(err)
	}
	if machineFailure == "" {
		return
	}
	osm.Status = infrav1.OpenStackMachineStatus{
		FailureReason:  ptr.To(capoerrors.DeprecatedCAPIUpdateMachineError),
		FailureMessage: ptr.To(machineFailure),
	}
	if err := env.Client.Status().Update(ctx, osm); err != nil {
		t.Fatal(err)
	}
}
