package observer

import (
	"context"
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

// A server CAPO could not create fails its OpenStackMachine with "instance
// state ERROR is unexpected", which names no cause; Nova's answer is on the
// OpenStackServer of the same name (InstanceReady False,
// InstanceCreateFailed), and the failure carries it: what the real CAPO
// v0.14.7 writes when a project's instance quota is exceeded.
func TestOpenStackServerFaultNamesTheFailure(t *testing.T) {
	sink := startObserver(t)
	ctx := context.Background()
	newCluster(t, "kube-oss01", "uuid-oss01")
	waitFirst(t, sink, "uuid-oss01")
	labels := map[string]string{labelClusterName: "kube-oss01"}
	id := infrav1.OpenStackIdentityReference{Type: "Secret", Name: "kube-oss01-cloud-config", CloudName: "default"}

	const fault = "Quota exceeded for instances: Requested 1, but already used 1 of 1 instances"
	srv := &infrav1alpha1.OpenStackServer{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: "kube-oss01-md-0-abcde", Labels: labels},
		Spec: infrav1alpha1.OpenStackServerSpec{
			Flavor: ptr.To("m1.small"), Image: infrav1.ImageParam{ID: ptr.To("c9f0c6c5-7d4d-4f54-9c1f-000000000001")},
			IdentityRef: id, Ports: []infrav1.PortOpts{{}},
		},
	}
	if err := env.Client.Create(ctx, srv); err != nil {
		t.Fatal(err)
	}
	srv.Status = infrav1alpha1.OpenStackServerStatus{
		InstanceState: ptr.To(infrav1.InstanceStateError),
		Conditions: clusterv1beta1.Conditions{{Type: infrav1.InstanceReadyCondition, Status: corev1.ConditionFalse,
			Severity: clusterv1beta1.ConditionSeverityError, Reason: infrav1.InstanceCreateFailedReason,
			Message: fault, LastTransitionTime: metav1.Now()}},
	}
	if err := env.Client.Status().Update(ctx, srv); err != nil {
		t.Fatal(err)
	}
	osm := &infrav1.OpenStackMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: srv.Name, Labels: labels},
		Spec:       infrav1.OpenStackMachineSpec{Flavor: ptr.To("m1.small"), Image: srv.Spec.Image},
	}
	if err := env.Client.Create(ctx, osm); err != nil {
		t.Fatal(err)
	}
	osm.Status = infrav1.OpenStackMachineStatus{
		FailureReason:  ptr.To(capoerrors.DeprecatedCAPIUpdateMachineError),
		FailureMessage: ptr.To("instance state ERROR is unexpected"),
	}
	if err := env.Client.Status().Update(ctx, osm); err != nil {
		t.Fatal(err)
	}

	want := "OpenStackMachine kube-oss01-md-0-abcde failed: UpdateError: instance state ERROR is unexpected" +
		" (OpenStackServer kube-oss01-md-0-abcde: InstanceReady: InstanceCreateFailed: " + fault + ")"
	deadline := time.Now().Add(10 * time.Second)
	for got := ""; got != want; {
		if o := sink.get("uuid-oss01"); o != nil {
			got = o.Failure
		}
		if time.Now().After(deadline) {
			t.Fatalf("failure %q, want %q", got, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
