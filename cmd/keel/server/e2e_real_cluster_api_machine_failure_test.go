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
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/simulator/capo"
)

// With Cluster API's own controllers, a server Nova puts in ERROR (reported
// as CAPO v0.14 reports it: the OpenStackMachine's failureReason
// UpdateError, "instance state ERROR is unexpected", which Cluster API
// copies to its Machine) fails the create with that machine's reason, well
// before create_timeout.
func TestRealClusterAPIMachineFailureGivesCreateFailed(t *testing.T) {
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
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "doomed", ClusterTemplateID: tmpl.UUID}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c, err := clusters.Get(ctx, sc, id).Extract()
	if err != nil {
		t.Fatal(err)
	}
	// As soon as the CAPI Cluster exists, its servers go to ERROR.
	var cl clusterv1.Cluster
	waitFor(t, time.Minute, "the CAPI Cluster", func() bool {
		return in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID}, &cl) == nil
	})
	patch := client.RawPatch("application/merge-patch+json",
		[]byte(`{"metadata":{"annotations":{"`+capo.AnnotationFailMachines+`":"No valid host was found."}}}`))
	if err := in.Client.Patch(ctx, &cl, patch); err != nil {
		t.Fatal(err)
	}

	waitFor(t, 3*time.Minute, "the create to end", func() bool {
		c, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && c.Status != "CREATE_IN_PROGRESS"
	})
	t.Logf("status %s: %s", c.Status, c.StatusReason)
	if c.Status != "CREATE_FAILED" {
		t.Fatalf("status %s (%s), want CREATE_FAILED", c.Status, c.StatusReason)
	}
	if !strings.Contains(c.StatusReason, "Machine ") || !strings.Contains(c.StatusReason, "instance state ERROR is unexpected") {
		t.Errorf("status_reason %q does not name the machine and CAPO's reason", c.StatusReason)
	}
	if len(c.Faults) == 0 {
		t.Errorf("no faults on a failed cluster")
	}
}
