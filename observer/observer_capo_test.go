package observer

import (
	"context"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	capoerrors "sigs.k8s.io/cluster-api-provider-openstack/pkg/utils/errors"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// CAPO's own words reach the status: an OpenStackCluster's not-ready
// condition becomes the reason while the cluster is not available, and its
// terminal failure (e.g. Neutron refusing the router) the failure.
func TestOpenStackClusterReasonAndFailureAreObserved(t *testing.T) {
	sink := startObserver(t)
	ctx := context.Background()
	newCluster(t, "kube-osc01", "uuid-osc01")
	waitFirst(t, sink, "uuid-osc01")

	osc := &infrav1.OpenStackCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: "kube-osc01", Labels: map[string]string{labelClusterName: "kube-osc01"}},
		Spec: infrav1.OpenStackClusterSpec{
			IdentityRef: infrav1.OpenStackIdentityReference{Type: "Secret", Name: "kube-osc01-cloud-config", CloudName: "default"},
		},
	}
	if err := env.Client.Create(ctx, osc); err != nil {
		t.Fatal(err)
	}
	setStatus := func(st infrav1.OpenStackClusterStatus) {
		t.Helper()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(osc), osc); err != nil {
			t.Fatal(err)
		}
		osc.Status = st
		if err := env.Client.Status().Update(ctx, osc); err != nil {
			t.Fatal(err)
		}
	}
	waitFor := func(what string, ok func() bool) {
		t.Helper()
		deadline := time.Now().Add(10 * time.Second)
		for !ok() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s: %+v", what, sink.get("uuid-osc01"))
			}
			time.Sleep(20 * time.Millisecond)
		}
	}

	setStatus(infrav1.OpenStackClusterStatus{Conditions: clusterv1beta1.Conditions{{
		Type: "NetworkReady", Status: corev1.ConditionFalse, Reason: "NetworkReconcileFailed", Severity: clusterv1beta1.ConditionSeverityWarning,
		Message: "Quota exceeded for resources: ['router']", LastTransitionTime: metav1.Now(),
	}}})
	waitFor("the condition as the reason", func() bool {
		o := sink.get("uuid-osc01")
		return o != nil && strings.Contains(o.Reason, "OpenStackCluster kube-osc01: NetworkReady: NetworkReconcileFailed: Quota exceeded")
	})

	setStatus(infrav1.OpenStackClusterStatus{
		FailureReason:  ptr.To(capoerrors.DeprecatedCAPIClusterStatusError("CreateError")),
		FailureMessage: ptr.To("failed to create router: 409 Conflict"),
	})
	waitFor("the failure", func() bool {
		o := sink.get("uuid-osc01")
		return o != nil && o.Failure == "OpenStackCluster kube-osc01 failed: CreateError: failed to create router: 409 Conflict"
	})
}
