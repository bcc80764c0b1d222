package workload

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A Node annotated kubelet-stopped is a Node whose kubelet went silent: its
// conditions turn Unknown (reason NodeStatusUnknown, as the node lifecycle
// controller writes them) and its heartbeat stops; once the annotation is
// gone the kubelet posts Ready again.
func TestNodeKubeletStoppedTurnsUnknown(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "stopped")
	m := Machine{Name: "stopped-control-plane-abcde", ControlPlane: true, IP: "10.0.0.11", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000002", KubeletVersion: "v1.33.4"}
	if err := c.Boot(ctx, m); err != nil {
		t.Fatal(err)
	}
	cni := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "calico-node"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "calico-node"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "calico-node", Image: "quay.io/calico/node:v3.30.3"}}},
			},
		},
	}
	if err := c.Client().Create(ctx, cni); err != nil {
		t.Fatal(err)
	}
	node := func() *corev1.Node {
		t.Helper()
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		n, err := c.nodeObject(ctx, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	annotate := func(value *string) {
		t.Helper()
		n := node()
		before := n.DeepCopy()
		if value == nil {
			delete(n.Annotations, AnnotationKubeletStopped)
		} else {
			metav1.SetMetaDataAnnotation(&n.ObjectMeta, AnnotationKubeletStopped, *value)
		}
		if err := c.Client().Patch(ctx, n, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
	}
	if r := nodeCondition(node(), corev1.NodeReady); r == nil || r.Status != corev1.ConditionTrue {
		t.Fatalf("with a CNI: Ready %+v, want True", r)
	}

	stopped := "true"
	annotate(&stopped)
	n := node()
	for _, typ := range []corev1.NodeConditionType{corev1.NodeReady, corev1.NodeMemoryPressure, corev1.NodeDiskPressure, corev1.NodePIDPressure} {
		cond := nodeCondition(n, typ)
		if cond == nil || cond.Status != corev1.ConditionUnknown || cond.Reason != reasonNodeStatusUnknown || cond.Message != messageNodeStatusUnknown {
			t.Errorf("kubelet stopped: %s = %+v, want Unknown NodeStatusUnknown", typ, cond)
		}
	}
	// Heartbeats have a one-second resolution: past it, a stopped kubelet's
	// heartbeat must still be the one it posted last.
	heartbeat := nodeCondition(n, corev1.NodeReady).LastHeartbeatTime
	time.Sleep(1100 * time.Millisecond)
	if hb := nodeCondition(node(), corev1.NodeReady).LastHeartbeatTime; !hb.Equal(&heartbeat) {
		t.Errorf("a stopped kubelet's heartbeat moved from %s to %s", heartbeat, hb)
	}

	annotate(nil)
	if r := nodeCondition(node(), corev1.NodeReady); r.Status != corev1.ConditionTrue {
		t.Fatalf("kubelet started again: Ready = %s (%s), want True", r.Status, r.Reason)
	}
}
