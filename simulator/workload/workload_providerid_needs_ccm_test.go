package workload

import (
	"testing"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// A Node gets spec.providerID (what Cluster API matches Machines to Nodes
// by) and loses the cloud-provider uninitialized taint only once the
// OpenStack cloud controller manager is in the workload cluster, as with
// kubelet --cloud-provider=external on a real cloud.
func TestProviderIDNeedsCloudControllerManager(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "ccm")
	cp := Machine{Name: "ccm-control-plane-abcde", ControlPlane: true, IP: "10.0.0.11", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000002", KubeletVersion: "v1.33.4"}
	worker := Machine{Name: "ccm-default-worker-xyz12", IP: "10.0.0.12", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000003", KubeletVersion: "v1.33.4"}
	for _, m := range []Machine{cp, worker} {
		if err := c.Boot(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	check := func(m Machine, wantID string, wantTaint bool) {
		t.Helper()
		n, err := c.nodeObject(ctx, m.Name)
		if err != nil {
			t.Fatal(err)
		}
		tainted := false
		for _, taint := range n.Spec.Taints {
			tainted = tainted || taint.Key == taintUninitialized
		}
		if n.Spec.ProviderID != wantID || tainted != wantTaint {
			t.Fatalf("node %s: providerID %q, uninitialized taint %v; want %q, %v", m.Name, n.Spec.ProviderID, tainted, wantID, wantTaint)
		}
	}
	check(cp, "", true)
	check(worker, "", true)

	ccm := &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "openstack-cloud-controller-manager"},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: map[string]string{"k8s-app": "openstack-cloud-controller-manager"}},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"k8s-app": "openstack-cloud-controller-manager"}},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: "occm", Image: "registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.33.1"}}},
			},
		},
	}
	if err := c.Client().Create(ctx, ccm); err != nil {
		t.Fatal(err)
	}
	if err := c.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	check(cp, cp.ProviderID, false)
	check(worker, worker.ProviderID, false)
}
