package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// With --cluster-api=real, a cluster created through the Magnum API is
// provisioned by Cluster API's own controllers: its API server comes up
// (the kubeconfig Cluster API writes reaches it), keel's ClusterResourceSets
// deliver the OpenStack cloud controller manager, which gives its servers'
// Nodes their providerIDs, and Calico, which makes them Ready; only then is
// the cluster CREATE_COMPLETE and HEALTHY, as it would be on a real cloud.
// Every delivered workload (CNI, cloud controller manager, Cinder CSI's
// controller and node plugins) runs the image under container_infra_prefix,
// and an upgrade to a template with another calico_tag reaches the running
// CNI through Cluster API's re-apply (strategy Reconcile).
func TestRealClusterAPICreateCompletesWithAddons(t *testing.T) {
	const mirror = "registry.example.com/mirror"
	ctx := context.Background()
	in, sc := startRealKeel(t)

	tmpl := realTemplate(t, sc, "", "calico", map[string]string{"calico_tag": "v3.28.5", "container_infra_prefix": mirror})
	next := realTemplate(t, sc, "next", "calico", map[string]string{"calico_tag": "v3.30.2", "container_infra_prefix": mirror})
	one := 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "real", ClusterTemplateID: tmpl.UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	var got *clusters.Cluster
	waitFor(t, 3*time.Minute, "the workload cluster's API server", func() bool {
		got, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && got.StackID != "" && strings.HasPrefix(got.APIAddress, "https://127.0.0.1:")
	})

	// The kubeconfig Cluster API wrote reaches the workload cluster, whose
	// servers registered as Nodes and got their providerIDs from the cloud
	// controller manager keel's ClusterResourceSet delivered.
	wl := workloadClient(t, in, got.StackID)
	waitFor(t, 3*time.Minute, "two Nodes with providerIDs in the workload cluster", func() bool {
		var nodes corev1.NodeList
		if wl.List(ctx, &nodes) != nil || len(nodes.Items) != 2 {
			return false
		}
		for _, n := range nodes.Items {
			if n.Spec.ProviderID == "" {
				return false
			}
		}
		return true
	})
	var ds appsv1.DaemonSet
	if err := wl.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "openstack-cloud-controller-manager"}, &ds); err != nil {
		t.Fatalf("OCCM DaemonSet: %v", err)
	}

	// Calico came with the cluster's <uuid> set: the Nodes become Ready,
	// Cluster API links and counts them, and the cluster completes.
	waitFor(t, 4*time.Minute, "CREATE_COMPLETE", func() bool {
		got, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && got.Status != "CREATE_IN_PROGRESS"
	})
	if got.Status != "CREATE_COMPLETE" || got.HealthStatus != "HEALTHY" {
		t.Fatalf("status %s (%s), health %s, want CREATE_COMPLETE and HEALTHY", got.Status, got.StatusReason, got.HealthStatus)
	}
	calicoImage := func() string {
		if err := wl.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
			t.Fatalf("calico-node DaemonSet: %v", err)
		}
		return ds.Spec.Template.Spec.Containers[0].Image
	}
	if img := calicoImage(); img != mirror+"/calico/node:v3.28.5" {
		t.Fatalf("calico-node runs %s, want %s/calico/node:v3.28.5", img, mirror)
	}
	// Every container of every delivered workload pulls from the mirror.
	for _, w := range []client.Object{
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "openstack-cloud-controller-manager"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-node"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "calico-kube-controllers"}},
		&appsv1.Deployment{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "openstack-cinder-csi-controllerplugin"}},
		&appsv1.DaemonSet{ObjectMeta: metav1.ObjectMeta{Namespace: "kube-system", Name: "openstack-cinder-csi-nodeplugin"}},
	} {
		if err := wl.Get(ctx, client.ObjectKeyFromObject(w), w); err != nil {
			t.Fatalf("%T %s: %v", w, w.GetName(), err)
		}
		var spec corev1.PodSpec
		switch o := w.(type) {
		case *appsv1.DaemonSet:
			spec = o.Spec.Template.Spec
		case *appsv1.Deployment:
			spec = o.Spec.Template.Spec
		}
		for _, c := range append(spec.InitContainers, spec.Containers...) {
			if !strings.HasPrefix(c.Image, mirror+"/") {
				t.Errorf("%s container %s runs %s, not from %s", w.GetName(), c.Name, c.Image, mirror)
			}
		}
	}
	var classes storagev1.StorageClassList
	if err := wl.List(ctx, &classes); err != nil || len(classes.Items) == 0 {
		t.Fatalf("no StorageClass in the workload cluster (%v)", err)
	}

	// An upgrade to a template with another Calico release changes the
	// payload; Cluster API re-applies it to the running cluster.
	if _, err := clusters.Upgrade(ctx, sc, id, clusters.UpgradeOpts{ClusterTemplate: next.UUID}).Extract(); err != nil {
		t.Fatal(err)
	}
	waitFor(t, 3*time.Minute, "calico-node at v3.30.2 in the workload cluster", func() bool {
		return calicoImage() == mirror+"/calico/node:v3.30.2"
	})
	waitFor(t, 3*time.Minute, "UPDATE_COMPLETE", func() bool {
		got, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && got.Status == "UPDATE_COMPLETE"
	})
	var nodes corev1.NodeList
	if err := wl.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		ready := false
		for _, c := range n.Status.Conditions {
			ready = ready || c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue
		}
		if !ready {
			t.Fatalf("Node %s is not Ready in a CREATE_COMPLETE cluster", n.Name)
		}
	}
}
