package lightapi

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Drain lists a node's pods in all namespaces by spec.nodeName.
func TestPodsListedByNodeName(t *testing.T) {
	ctx, srv := testContext(t), newServer(t)
	cs := srv.clientset(t)
	for ns, pods := range map[string][]*corev1.Pod{"default": {pod("a", "n1"), pod("b", "n2")}, "kube-system": {pod("c", "n1")}} {
		for _, p := range pods {
			if _, err := cs.CoreV1().Pods(ns).Create(ctx, p, metav1.CreateOptions{}); err != nil {
				t.Fatal(err)
			}
		}
	}
	list := &corev1.PodList{}
	err := srv.client(t).List(ctx, list, client.InNamespace(""), client.MatchingFields{"spec.nodeName": "n1"}, client.Limit(100))
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, p := range list.Items {
		got = append(got, p.Namespace+"/"+p.Name)
	}
	if fmtList(got) != "[default/a kube-system/c]" {
		t.Fatalf("pods on n1: %v", got)
	}
}
