package server

import (
	"context"
	"log/slog"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// With --cluster-api=real, a cluster created through the Magnum API is
// provisioned by Cluster API's own controllers: its API server comes up
// (the kubeconfig Cluster API writes reaches it), keel's ClusterResourceSets
// deliver the OpenStack cloud controller manager, which gives its servers'
// Nodes their providerIDs, and Calico, which makes them Ready; only then is
// the cluster CREATE_COMPLETE and HEALTHY, as it would be on a real cloud.
func TestRealClusterAPICreateCompletesWithAddons(t *testing.T) {
	ctx := context.Background()
	in, err := Start(ctx, Options{
		DataDir:        t.TempDir(),
		Listen:         "127.0.0.1:0",
		Auth:           auth.NoAuth{DefaultProject: "p-real", Admin: false},
		RealClusterAPI: true,
		SimulateStep:   200 * time.Millisecond,
		Reconciler:     reconciler.Options{Poll: 200 * time.Millisecond, RetryMin: 200 * time.Millisecond},
		Log:            slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelError})),
		Out:            os.Stderr,
	})
	if err != nil {
		if in != nil {
			_ = in.Stop()
		}
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = in.Stop() })
	sc := &gophercloud.ServiceClient{ProviderClient: &gophercloud.ProviderClient{}, Endpoint: in.URL + "/v1/", Type: "container-infra", Microversion: "1.10"}

	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33.1", FlavorID: "m1.medium", MasterFlavorID: "m1.large",
		ExternalNetworkID: "public", NetworkDriver: "calico", Labels: map[string]string{"kube_tag": "v1.33.1"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
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
	var kc corev1.Secret
	waitFor(t, time.Minute, "the kubeconfig Secret", func() bool {
		return in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: got.StackID + "-kubeconfig"}, &kc) == nil
	})
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc.Data["value"])
	if err != nil {
		t.Fatal(err)
	}
	wl, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
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
	if err := wl.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "calico-node"}, &ds); err != nil {
		t.Fatalf("calico-node DaemonSet: %v", err)
	}
	if img := ds.Spec.Template.Spec.Containers[0].Image; img != "quay.io/calico/node:v3.30.2" {
		t.Fatalf("calico-node runs %s, want quay.io/calico/node:v3.30.2", img)
	}
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
