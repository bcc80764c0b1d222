package capo_test

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// With Cluster API's real controllers, a cluster provisions its servers but
// never links a Machine to a Node while its workload cluster has no
// OpenStack cloud controller manager (no Node gets a providerID), so it
// cannot complete: exactly what a real cloud does. keel's
// ClusterResourceSets are left out (applyCluster), so no addon arrives by
// itself; once the cloud controller manager and a CNI are in the workload
// cluster (here applied by hand), every Machine gets its Node and the Cluster
// becomes Available; deleting it tears everything down, workload cluster
// included.
func TestClusterCompletesOnlyWithCloudControllerAndCNI(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), 6*time.Minute)
	defer cancel()
	const name = "kube-addons"
	applyCluster(t, name, 1, 1)
	key := client.ObjectKey{Namespace: kube.Namespace, Name: name}

	eventually(t, 2*time.Minute, "both servers booted and registered as Nodes", func() error {
		wc := workloads.Cluster(kube.Namespace + "/" + name)
		if wc == nil || !wc.Running() {
			return errors.New("workload cluster not running")
		}
		var nodes corev1.NodeList
		if err := wc.Client().List(ctx, &nodes); err != nil {
			return err
		}
		if len(nodes.Items) != 2 {
			return fmt.Errorf("%d nodes", len(nodes.Items))
		}
		return nil
	})

	// Many steps later, still no Machine has a Node: Cluster API waits for
	// the providerID only a cloud controller manager sets.
	time.Sleep(20 * step)
	var machines clusterv1.MachineList
	if err := env.Client.List(ctx, &machines, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
		t.Fatal(err)
	}
	if len(machines.Items) != 2 {
		t.Fatalf("%d machines, want 2", len(machines.Items))
	}
	for _, m := range machines.Items {
		if m.Status.NodeRef.IsDefined() {
			t.Fatalf("machine %s has node %s without a cloud controller manager", m.Name, m.Status.NodeRef.Name)
		}
		c := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineNodeHealthyCondition)
		if c == nil || c.Status == metav1.ConditionTrue {
			t.Fatalf("machine %s: NodeHealthy = %+v, want not true", m.Name, c)
		}
		t.Logf("machine %s waits: %s: %s", m.Name, c.Reason, c.Message)
	}

	wc := workloads.Cluster(kube.Namespace + "/" + name)
	for _, ds := range []string{"openstack-cloud-controller-manager", "calico-node"} {
		if err := wc.Client().Create(ctx, daemonSet(ds)); err != nil {
			t.Fatal(err)
		}
	}

	eventually(t, 3*time.Minute, "cluster Available", func() error {
		c := &clusterv1.Cluster{}
		if err := env.Client.Get(ctx, key, c); err != nil {
			return err
		}
		if cond := meta.FindStatusCondition(c.Status.Conditions, clusterv1.AvailableCondition); cond == nil || cond.Status != metav1.ConditionTrue {
			return fmt.Errorf("Available: %+v", cond)
		}
		return nil
	})
	if err := env.Client.List(ctx, &machines, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil {
		t.Fatal(err)
	}
	for _, m := range machines.Items {
		if !m.Status.NodeRef.IsDefined() || m.Status.NodeRef.Name != m.Spec.InfrastructureRef.Name {
			t.Fatalf("machine %s: nodeRef %q, want its server's Node %s", m.Name, m.Status.NodeRef.Name, m.Spec.InfrastructureRef.Name)
		}
	}
	// The KubeadmControlPlane's counters are written by its own controller
	// and may trail the Cluster's Available condition by a reconcile.
	eventually(t, time.Minute, "KubeadmControlPlane readyReplicas 1", func() error {
		var kcps controlplanev1.KubeadmControlPlaneList
		if err := env.Client.List(ctx, &kcps, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: name}); err != nil || len(kcps.Items) != 1 {
			return fmt.Errorf("kubeadm control planes: %v, %v", len(kcps.Items), err)
		}
		if r := kcps.Items[0].Status.ReadyReplicas; r == nil || *r != 1 {
			return fmt.Errorf("readyReplicas = %v", ptrString(r))
		}
		return nil
	})

	c := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name}}
	if err := env.Client.Delete(ctx, c); err != nil {
		t.Fatal(err)
	}
	eventually(t, 2*time.Minute, "cluster deleted", func() error {
		err := env.Client.Get(ctx, key, &clusterv1.Cluster{})
		if apierrors.IsNotFound(err) {
			return nil
		}
		return fmt.Errorf("still there (%v)", err)
	})
	if workloads.Cluster(kube.Namespace+"/"+name) != nil {
		t.Fatal("the workload cluster outlived its OpenStackCluster")
	}
}

// daemonSet is a minimal DaemonSet of the given name in kube-system: the
// simulated kubelets only look for the object.
func daemonSet(name string) *appsv1.DaemonSet {
	labels := map[string]string{"k8s-app": name}
	return &appsv1.DaemonSet{
		ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: name},
		Spec: appsv1.DaemonSetSpec{
			Selector: &metav1.LabelSelector{MatchLabels: labels},
			Template: corev1.PodTemplateSpec{
				ObjectMeta: metav1.ObjectMeta{Labels: labels},
				Spec:       corev1.PodSpec{Containers: []corev1.Container{{Name: strings.TrimSuffix(name, "-node"), Image: "example.org/" + name + ":v1"}}},
			},
		},
	}
}

func ptrString[T any](p *T) string {
	if p == nil {
		return "nil"
	}
	return fmt.Sprint(*p)
}
