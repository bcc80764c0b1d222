package clusterapi_test

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// Cluster API's defaulting webhook runs on what is created: a Machine gets
// the cluster-name label from spec.clusterName, and a version without its
// leading "v" gets one.
func TestWebhookDefaultsMachine(t *testing.T) {
	ctx := context.Background()
	ns := newNamespace(t)
	m := testMachine(ns, "defaulted")
	m.Spec.Version = "1.33.1"
	if err := env.Client.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	if got := m.Labels[clusterv1.ClusterNameLabel]; got != "c1" {
		t.Errorf("label %s = %q, want c1", clusterv1.ClusterNameLabel, got)
	}
	if m.Spec.Version != "v1.33.1" {
		t.Errorf("version = %q, want v1.33.1", m.Spec.Version)
	}
}

// testMachine is a Machine of cluster c1 that Cluster API admits.
func testMachine(ns, name string) *clusterv1.Machine {
	return &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: clusterv1.MachineSpec{
			ClusterName: "c1",
			Bootstrap:   clusterv1.Bootstrap{DataSecretName: new("c1-bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{
				APIGroup: "infrastructure.cluster.x-k8s.io", Kind: "OpenStackMachine", Name: name,
			},
		},
	}
}
