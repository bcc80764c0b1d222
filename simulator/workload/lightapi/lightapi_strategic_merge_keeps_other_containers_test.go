package lightapi

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/types"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

func TestStrategicMergeOfDeploymentKeepsOtherContainers(t *testing.T) {
	ctx, c := testContext(t), newServer(t).client(t)
	labels := map[string]string{"k8s-app": "kube-dns"}
	d := &appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Name: "coredns", Namespace: "kube-system"},
		Spec: appsv1.DeploymentSpec{Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "coredns", Image: "coredns:1.11"}, {Name: "sidecar", Image: "sidecar:1"}}}}}}
	if err := c.Create(ctx, d); err != nil {
		t.Fatal(err)
	}
	// A strategic merge patch names only the changed container; the server
	// merges it into the list by name (a merge patch would replace the list).
	patch := []byte(`{"spec":{"template":{"spec":{"containers":[{"name":"coredns","image":"coredns:1.12"}]}}}}`)
	if err := c.Patch(ctx, d, client.RawPatch(types.StrategicMergePatchType, patch)); err != nil {
		t.Fatal(err)
	}
	got := &appsv1.Deployment{}
	if err := c.Get(ctx, client.ObjectKeyFromObject(d), got); err != nil {
		t.Fatal(err)
	}
	cs := got.Spec.Template.Spec.Containers
	if len(cs) != 2 || cs[0].Image != "coredns:1.12" || cs[1].Image != "sidecar:1" {
		t.Fatalf("containers: %+v", cs)
	}
	if got.Generation != 2 {
		t.Fatalf("generation after a spec change: %d, want 2", got.Generation)
	}
}
