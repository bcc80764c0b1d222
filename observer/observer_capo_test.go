package observer

import (
	"context"
	"strings"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

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

	osc := capoObject(kindOpenStackCluster)
	osc.SetNamespace(kube.Namespace)
	osc.SetName("kube-osc01")
	osc.SetLabels(map[string]string{labelClusterName: "kube-osc01"})
	_ = unstructured.SetNestedMap(osc.Object, map[string]any{
		"identityRef": map[string]any{"type": "Secret", "name": "kube-osc01-cloud-config", "cloudName": "default"},
	}, "spec")
	if err := env.Client.Create(ctx, osc); err != nil {
		t.Fatal(err)
	}
	setStatus := func(st map[string]any) {
		t.Helper()
		if err := env.Client.Get(ctx, clientKey(osc), osc); err != nil {
			t.Fatal(err)
		}
		_ = unstructured.SetNestedMap(osc.Object, st, "status")
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

	setStatus(map[string]any{"ready": false, "conditions": []any{map[string]any{
		"type": "NetworkReady", "status": "False", "reason": "NetworkReconcileFailed", "severity": "Warning",
		"message": "Quota exceeded for resources: ['router']", "lastTransitionTime": "2026-11-30T00:00:00Z",
	}}})
	waitFor("the condition as the reason", func() bool {
		o := sink.get("uuid-osc01")
		return o != nil && strings.Contains(o.Reason, "OpenStackCluster kube-osc01: NetworkReady: NetworkReconcileFailed: Quota exceeded")
	})

	setStatus(map[string]any{"ready": false, "failureReason": "CreateError", "failureMessage": "failed to create router: 409 Conflict"})
	waitFor("the failure", func() bool {
		o := sink.get("uuid-osc01")
		return o != nil && o.Failure == "OpenStackCluster kube-osc01 failed: CreateError: failed to create router: 409 Conflict"
	})
}
