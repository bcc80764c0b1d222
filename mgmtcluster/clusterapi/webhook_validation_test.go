package clusterapi_test

import (
	"context"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Machine whose version is not a semantic version passes the CRD schema
// (a string of 1 to 256 characters) and is refused by Cluster API's own
// validating webhook, as on a real management cluster.
func TestWebhookRefusesMachineWithInvalidVersion(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	m := testMachine(ns, "bad-version")
	m.Spec.Version = "not-a-version"
	err := env.Client.Create(ctx, m)
	if err == nil {
		t.Fatal("the Machine was admitted")
	}
	t.Log(err)
	if !strings.Contains(err.Error(), `admission webhook "validation.machine.cluster.x-k8s.io" denied the request`) {
		t.Errorf("refused, but not by Cluster API's webhook: %v", err)
	}
}

func newNamespace(t *testing.T) string {
	t.Helper()
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{GenerateName: "capi-"}}
	if err := env.Client.Create(context.Background(), ns); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Client.Delete(context.Background(), ns) })
	return ns.Name
}
