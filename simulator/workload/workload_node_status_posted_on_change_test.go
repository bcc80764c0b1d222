package workload

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A simulated kubelet posts its Node's status when it changes, and an
// unchanged one only every nodeStatusReportFrequency, as a real kubelet with
// node leases does: an idle simulated cluster writes nothing, so it sends
// Cluster API's Machine controller no Node events to reconcile.
func TestNodeStatusPostedOnlyWhenItChanges(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "quiet")
	m := Machine{Name: "quiet-control-plane-abcde", ControlPlane: true, IP: "10.0.0.11", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000002", KubeletVersion: "v1.33.4"}
	if err := c.Boot(ctx, m); err != nil {
		t.Fatal(err)
	}
	node := func() *corev1.Node {
		t.Helper()
		n, err := c.nodeObject(ctx, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		return n
	}
	booted := node().ResourceVersion
	for range 3 {
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
	}
	if rv := node().ResourceVersion; rv != booted {
		t.Fatalf("an unchanged Node was written again (resourceVersion %s → %s)", booted, rv)
	}

	// A change (the CNI arrives) is posted at the next sync.
	ds := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "cilium"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "cilium"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "cilium"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "cilium-agent", Image: "quay.io/cilium/cilium:v1.17.6"}}},
			},
		},
	}
	if err := c.Client().Create(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if n := node(); nodeCondition(n, corev1.NodeReady).Status != corev1.ConditionTrue {
		t.Fatalf("with a CNI: Ready = %+v, want True at the next sync", nodeCondition(n, corev1.NodeReady))
	}

	// An unchanged status is posted again once the report period is over.
	ready := node()
	a, err := presentAddons(ctx, c.Client())
	if err != nil {
		t.Fatal(err)
	}
	if err := c.syncNode(ctx, c.Client(), m, a, time.Now().Add(nodeStatusReportFrequency/2)); err != nil {
		t.Fatal(err)
	}
	if rv := node().ResourceVersion; rv != ready.ResourceVersion {
		t.Fatalf("re-posted within the report period (resourceVersion %s → %s)", ready.ResourceVersion, rv)
	}
	later := time.Now().Add(nodeStatusReportFrequency + time.Minute)
	if err := c.syncNode(ctx, c.Client(), m, a, later); err != nil {
		t.Fatal(err)
	}
	if hb := nodeCondition(node(), corev1.NodeReady).LastHeartbeatTime; hb.Unix() != later.Unix() {
		t.Fatalf("heartbeat %s after the report period, want %s", hb, later)
	}
}
