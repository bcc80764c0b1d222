package server

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// startRealKeel starts keel on an embedded management cluster with Cluster
// API's own controllers (--cluster-api=real) and a Magnum API client for it.
func startRealKeel(t *testing.T) (*Instance, *gophercloud.ServiceClient) {
	t.Helper()
	in, err := Start(context.Background(), Options{
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
	return in, &gophercloud.ServiceClient{ProviderClient: &gophercloud.ProviderClient{}, Endpoint: in.URL + "/v1/", Type: "container-infra", Microversion: "1.10"}
}

// realTemplate creates a cluster template of one-master-one-worker
// clusters on Kubernetes v1.33.1 with the CNI and labels given.
func realTemplate(t *testing.T, sc *gophercloud.ServiceClient, name, cni string, labels map[string]string) *clustertemplates.ClusterTemplate {
	t.Helper()
	l := map[string]string{"kube_tag": "v1.33.1"}
	for k, v := range labels {
		l[k] = v
	}
	tmpl, err := clustertemplates.Create(context.Background(), sc, clustertemplates.CreateOpts{
		Name: name, COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33.1", FlavorID: "m1.medium", MasterFlavorID: "m1.large",
		ExternalNetworkID: "public", NetworkDriver: cni, Labels: l,
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	return tmpl
}

// workloadClient waits for the kubeconfig Cluster API writes for stackID
// and returns a client of that workload cluster.
func workloadClient(t *testing.T, in *Instance, stackID string) client.Client {
	t.Helper()
	var kc corev1.Secret
	waitFor(t, 3*time.Minute, "the kubeconfig Secret", func() bool {
		return in.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: stackID + "-kubeconfig"}, &kc) == nil
	})
	cfg, err := clientcmd.RESTConfigFromKubeConfig(kc.Data["value"])
	if err != nil {
		t.Fatal(err)
	}
	wl, err := client.New(cfg, client.Options{})
	if err != nil {
		t.Fatal(err)
	}
	return wl
}
