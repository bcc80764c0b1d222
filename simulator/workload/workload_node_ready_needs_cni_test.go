package workload

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A booted machine's Node stays NotReady, with the kubelet's own
// NetworkPluginNotReady message, until a CNI is installed in the workload
// cluster; then it becomes Ready. This is what keeps a cluster without its
// CNI addon from looking healthy.
func TestNodeReadyNeedsCNI(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "cni")
	m := Machine{Name: "cni-control-plane-abcde", ControlPlane: true, IP: "10.0.0.10", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000001", KubeletVersion: "v1.33.4"}
	if err := c.Boot(ctx, m); err != nil {
		t.Fatal(err)
	}
	ready := func() corev1.NodeCondition {
		t.Helper()
		n, err := c.nodeObject(ctx, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		for _, cond := range n.Status.Conditions {
			if cond.Type == corev1.NodeReady {
				return cond
			}
		}
		t.Fatalf("node %s has no Ready condition", m.Name)
		return corev1.NodeCondition{}
	}
	if got := ready(); got.Status != corev1.ConditionFalse || got.Message != messageNetworkPlugin {
		t.Fatalf("without a CNI: Ready = %s (%q), want False with the kubelet's NetworkPluginNotReady message", got.Status, got.Message)
	}

	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-node"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "calico-node"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "calico-node", Image: "quay.io/calico/node:v3.30.3"}}},
			},
		},
	}
	if err := c.Client().Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ready(); got.Status != corev1.ConditionTrue {
		t.Fatalf("with calico-node applied: Ready = %s (%q), want True", got.Status, got.Message)
	}
	if err := c.Client().Delete(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if got := ready(); got.Status != corev1.ConditionFalse {
		t.Fatalf("after the CNI was removed: Ready = %s, want False", got.Status)
	}
}
