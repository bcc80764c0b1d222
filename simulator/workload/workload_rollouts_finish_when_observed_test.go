package workload

import (
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The workload cluster's kube-system rollouts finish as soon as the
// simulated controllers observe them: a DaemonSet on each Node its node
// selector picks, a Deployment's and a StatefulSet's replicas, all updated
// and available; a new pod template (a new generation) rolls out too.
// This is what `kubectl rollout status`, and keel's retirement of a
// rotated credential, wait for.
func TestRolloutsFinishWhenObserved(t *testing.T) {
	ctx := testContext(t)
	c, _ := newCluster(t, "rollout")
	for _, m := range []Machine{
		{Name: "rollout-control-plane-abcde", ControlPlane: true, IP: "10.0.0.21", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000021", KubeletVersion: "v1.33.4"},
		{Name: "rollout-default-worker-xyz12", IP: "10.0.0.22", ProviderID: "openstack:///0b9d5c3e-0000-4000-8000-000000000022", KubeletVersion: "v1.33.4"},
	} {
		if err := c.Boot(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	two := int32(2)
	ds := &appsv1.DaemonSet{ObjectMeta: systemObject("occm"), Spec: appsv1.DaemonSetSpec{Selector: selector("occm"), Template: podTemplate("occm")}}
	ds.Spec.Template.Spec.NodeSelector = map[string]string{labelControlPlane: ""}
	dep := &appsv1.Deployment{ObjectMeta: systemObject("csi-controller"), Spec: appsv1.DeploymentSpec{Replicas: &two, Selector: selector("csi-controller"), Template: podTemplate("csi-controller")}}
	sts := &appsv1.StatefulSet{ObjectMeta: systemObject("manila"), Spec: appsv1.StatefulSetSpec{Selector: selector("manila"), Template: podTemplate("manila")}}
	for _, o := range []client.Object{ds, dep, sts} {
		if err := c.Client().Create(ctx, o); err != nil {
			t.Fatal(err)
		}
	}
	sync := func() {
		t.Helper()
		c.mu.Lock()
		c.rolledOut = time.Time{} // due now
		c.mu.Unlock()
		if err := c.Sync(ctx); err != nil {
			t.Fatal(err)
		}
		for _, o := range []client.Object{ds, dep, sts} {
			if err := c.Client().Get(ctx, client.ObjectKeyFromObject(o), o); err != nil {
				t.Fatal(err)
			}
		}
	}
	sync()
	if s := ds.Status; s.ObservedGeneration != ds.Generation || s.DesiredNumberScheduled != 1 || s.UpdatedNumberScheduled != 1 || s.NumberAvailable != 1 {
		t.Errorf("DaemonSet on the control plane's one Node: %+v", s)
	}
	if s := dep.Status; s.ObservedGeneration != dep.Generation || s.Replicas != 2 || s.UpdatedReplicas != 2 || s.AvailableReplicas != 2 {
		t.Errorf("Deployment of 2: %+v", s)
	}
	if s := sts.Status; s.ObservedGeneration != sts.Generation || s.UpdatedReplicas != 1 || s.ReadyReplicas != 1 || s.CurrentRevision != s.UpdateRevision {
		t.Errorf("StatefulSet of 1: %+v", s)
	}

	ds.Spec.Template.Annotations = map[string]string{"restarted": "1"}
	if err := c.Client().Update(ctx, ds); err != nil {
		t.Fatal(err)
	}
	if ds.Generation != 2 {
		t.Fatalf("the new pod template is generation %d", ds.Generation)
	}
	sync()
	if s := ds.Status; s.ObservedGeneration != 2 || s.UpdatedNumberScheduled != 1 {
		t.Errorf("after a new pod template: %+v", s)
	}
}

func systemObject(name string) metav1.ObjectMeta {
	return metav1.ObjectMeta{Namespace: metav1.NamespaceSystem, Name: name}
}

func selector(app string) *metav1.LabelSelector {
	return &metav1.LabelSelector{MatchLabels: map[string]string{"app": app}}
}

func podTemplate(app string) corev1.PodTemplateSpec {
	return corev1.PodTemplateSpec{ObjectMeta: metav1.ObjectMeta{Labels: map[string]string{"app": app}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: app, Image: app + ":test"}}}}
}
