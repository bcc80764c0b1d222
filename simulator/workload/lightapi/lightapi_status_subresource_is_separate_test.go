package lightapi

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// A write to the object keeps its stored status; a write to /status
// changes only status, and neither bumps generation.
func TestStatusSubresourceIsSeparate(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	labels := map[string]string{"app": "x"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "d", Namespace: "default"},
		Spec: appsv1.DeploymentSpec{Replicas: ptr.To[int32](1), Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "c", Image: "i"}}}}}}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	d.Status.ReadyReplicas = 1
	d.Spec.Replicas = ptr.To[int32](5)
	if err := c.Status().Update(ctx, d); err != nil {
		t.Fatal(err)
	}
	got := get(t, c, d)
	if got.Status.ReadyReplicas != 1 || *got.Spec.Replicas != 1 || got.Generation != 1 {
		t.Fatalf("after a status update: ready %d, replicas %d, generation %d", got.Status.ReadyReplicas, *got.Spec.Replicas, got.Generation)
	}
	orig := got.DeepCopy()
	got.Status.ReadyReplicas = 7
	got.Labels = map[string]string{"l": "v"}
	if err := c.Patch(ctx, got, client.MergeFrom(orig)); err != nil {
		t.Fatal(err)
	}
	got = get(t, c, d)
	if got.Status.ReadyReplicas != 1 || got.Labels["l"] != "v" || got.Generation != 1 {
		t.Fatalf("after patching the object: ready %d, labels %v, generation %d", got.Status.ReadyReplicas, got.Labels, got.Generation)
	}
}

func get(t *testing.T, c client.Client, d *appsv1.Deployment) *appsv1.Deployment {
	t.Helper()
	got := &appsv1.Deployment{}
	if err := c.Get(testContext(t), client.ObjectKeyFromObject(d), got); err != nil {
		t.Fatal(err)
	}
	return got
}
