package server

import (
	"context"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// With leader election only one replica reconciles: a second one serves the
// API and commits, but applies nothing until the leader stops and hands the
// Lease over.
func TestOnlyTheLeaderReconciles(t *testing.T) {
	ctx := context.Background()
	start := func(name string) (*Instance, *gophercloud.ServiceClient) {
		in, err := Start(ctx, Options{
			DataDir: t.TempDir(), Listen: "127.0.0.1:0", Config: env.Config, LeaderElection: true,
			Auth:       auth.NoAuth{DefaultProject: "p-" + name},
			Reconciler: reconciler.Options{Poll: 200 * time.Millisecond, RetryMin: 200 * time.Millisecond},
			Log:        slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelWarn})),
			Out:        os.Stderr,
		})
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(func() { _ = in.Stop() })
		return in, &gophercloud.ServiceClient{ProviderClient: &gophercloud.ProviderClient{}, Endpoint: in.URL + "/v1/", Type: "container-infra"}
	}
	create := func(sc *gophercloud.ServiceClient, name string) string {
		tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{COE: "kubernetes", ImageID: "img",
			FlavorID: "m1", MasterFlavorID: "m1", Labels: map[string]string{"kube_tag": "v1.33.4"}}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: name, ClusterTemplateID: tmpl.UUID}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		c, err := clusters.Get(ctx, sc, uuid).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return c.StackID
	}
	applied := func(stack string) bool {
		err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stack}, &clusterv1.Cluster{})
		if err != nil && !apierrors.IsNotFound(err) {
			t.Fatal(err)
		}
		return err == nil
	}
	waitFor := func(what string, cond func() bool, within time.Duration) {
		t.Helper()
		deadline := time.Now().Add(within)
		for !cond() {
			if time.Now().After(deadline) {
				t.Fatalf("timed out waiting for %s", what)
			}
			time.Sleep(100 * time.Millisecond)
		}
	}

	leader, scA := start("leader")
	stackA := create(scA, "from-leader")
	waitFor("the leader to apply its cluster", func() bool { return applied(stackA) }, 60*time.Second)

	_, scB := start("follower")
	stackB := create(scB, "from-follower")
	time.Sleep(3 * time.Second) // several polls of the follower's repository
	if applied(stackB) {
		t.Fatal("the follower reconciled while the leader holds the Lease")
	}

	if err := leader.Stop(); err != nil { // releases the Lease
		t.Fatal(err)
	}
	waitFor("the follower to take over and apply", func() bool { return applied(stackB) }, 60*time.Second)
}
