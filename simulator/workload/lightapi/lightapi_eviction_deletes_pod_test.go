package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// Cluster API's drain evicts pods with the typed clientset's Evictions.
func TestEvictionDeletesPod(t *testing.T) {
	ctx, cs := testContext(t), newServer(t).clientset(t)
	pods := cs.CoreV1().Pods("default")
	if _, err := pods.Create(ctx, pod("p", "n1"), metav1.CreateOptions{}); err != nil {
		t.Fatal(err)
	}
	ev := &policyv1.Eviction{ObjectMeta: metav1.ObjectMeta{Name: "p", Namespace: "default"}}
	if err := cs.PolicyV1().Evictions("default").Evict(ctx, ev); err != nil {
		t.Fatal(err)
	}
	if _, err := pods.Get(ctx, "p", metav1.GetOptions{}); !apierrors.IsNotFound(err) {
		t.Fatalf("pod after eviction: want NotFound, got %v", err)
	}
	if err := cs.PolicyV1().Evictions("default").Evict(ctx, ev); !apierrors.IsNotFound(err) {
		t.Fatalf("evicting a missing pod: want NotFound, got %v", err)
	}
}

func pod(name, node string) *corev1.Pod {
	return &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: name},
		Spec: corev1.PodSpec{NodeName: node, Containers: []corev1.Container{{Name: "c", Image: "i"}}}}
}
