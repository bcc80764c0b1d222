package workload

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The kubelet-stopped annotation may say when the kubelet went silent (RFC
// 3339): the Node's conditions turn Unknown as of that time, as the node
// lifecycle controller would have marked them then, so a MachineHealthCheck
// sees a Node silent for longer than its timeout at once. A time in the
// future is now.
func TestNodeKubeletStoppedSinceATime(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "since")
	m := Machine{Name: "since-control-plane-abcde", ControlPlane: true, IP: "10.0.0.12", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000003", KubeletVersion: "v1.33.4"}
	if err := c.Boot(ctx, m); err != nil {
		t.Fatal(err)
	}
	stop := func(value string) *corev1.NodeCondition {
		t.Helper()
		n, err := c.nodeObject(ctx, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		before := n.DeepCopy()
		delete(n.Annotations, AnnotationKubeletStopped)
		if value != "" {
			metav1.SetMetaDataAnnotation(&n.ObjectMeta, AnnotationKubeletStopped, value)
		}
		if err := c.Client().Patch(ctx, n, client.MergeFrom(before)); err != nil {
			t.Fatal(err)
		}
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		if n, err = c.nodeObject(ctx, m.Name); err != nil {
			t.Fatal(err)
		}
		return nodeCondition(n, corev1.NodeReady)
	}
	silent := time.Now().Add(-10 * time.Minute).UTC().Truncate(time.Second)
	r := stop(silent.Format(time.RFC3339))
	if r.Status != corev1.ConditionUnknown || !r.LastTransitionTime.Time.Equal(silent) {
		t.Fatalf("stopped since %s: Ready %s since %s, want Unknown since then", silent, r.Status, r.LastTransitionTime)
	}

	stop("") // running again
	future := time.Now().Add(time.Hour)
	r = stop(future.UTC().Format(time.RFC3339))
	if r.Status != corev1.ConditionUnknown || r.LastTransitionTime.After(time.Now()) {
		t.Fatalf("stopped 'since' a future time: Ready %s since %s, want Unknown since now", r.Status, r.LastTransitionTime)
	}
}
