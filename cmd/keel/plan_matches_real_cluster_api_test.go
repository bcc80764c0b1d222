package main

import (
	"context"
	"log/slog"
	"os"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	"k8s.io/apimachinery/pkg/types"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// keel plan's classification holds against Cluster API's own controllers,
// on the same commits: an upgrade that only changes an addon payload
// (calico_tag) is "in place" and replaces no Machine; an upgrade to a
// template with another image "rolls machines", and Cluster API replaces
// every Machine (control plane and workers) before the cluster is
// UPDATE_COMPLETE again.
func TestPlanMatchesRealClusterAPI(t *testing.T) {
	ctx := context.Background()
	in, err := server.Start(ctx, server.Options{
		DataDir:        t.TempDir(),
		Listen:         "127.0.0.1:0",
		Auth:           auth.NoAuth{DefaultProject: "p-real"},
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

	template := func(name, image, calico string) string {
		t.Helper()
		tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
			Name: name, COE: "kubernetes", ImageID: image, FlavorID: "m1.medium", MasterFlavorID: "m1.large",
			ExternalNetworkID: "public", NetworkDriver: "calico", Labels: map[string]string{"kube_tag": "v1.33.1", "calico_tag": calico},
		}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return tmpl.UUID
	}
	first := template("first", "ubuntu-2204-kube-v1.33.1", "v3.28.5")
	addon := template("addon", "ubuntu-2204-kube-v1.33.1", "v3.30.2")
	image := template("image", "ubuntu-2404-kube-v1.33.1", "v3.30.2")

	one := 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "planned", ClusterTemplateID: first, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c := waitStatus(t, sc, id, "CREATE_COMPLETE", 8*time.Minute)

	// machines are the cluster's Machines' uids, by name.
	machines := func() map[string]types.UID {
		t.Helper()
		var l clusterv1.MachineList
		if err := in.Client.List(ctx, &l, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: c.StackID}); err != nil {
			t.Fatal(err)
		}
		out := map[string]types.UID{}
		for _, m := range l.Items {
			out[m.Name] = m.UID
		}
		return out
	}
	// upgrade upgrades to tmpl and returns what keel plan says of the
	// commit it made.
	upgrade := func(tmpl string) string {
		t.Helper()
		base, err := in.Store.Head()
		if err != nil {
			t.Fatal(err)
		}
		if _, err := clusters.Upgrade(ctx, sc, id, clusters.UpgradeOpts{ClusterTemplate: tmpl}).Extract(); err != nil {
			t.Fatal(err)
		}
		head, err := in.Store.Head()
		if err != nil {
			t.Fatal(err)
		}
		out, err := run(t, "plan", "--repo", in.Store.Dir(), "--base", base.String(), "--head", head.String())
		if err != nil {
			t.Fatalf("%v\n%s", err, out)
		}
		return out
	}

	before := machines()
	if len(before) != 2 {
		t.Fatalf("%d Machines in a 1+1 cluster, want 2", len(before))
	}
	out := upgrade(addon)
	if !strings.Contains(out, "cluster "+c.StackID+": in place") || strings.Contains(out, "rolls machines") {
		t.Fatalf("plan of a calico_tag change, want in place and no machine rolled:\n%s", out)
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", 6*time.Minute)
	if after := machines(); !sameUIDs(before, after) {
		t.Fatalf("plan said in place, but Cluster API replaced Machines: %v → %v", sortedNames(before), sortedNames(after))
	}

	out = upgrade(image)
	for _, want := range []string{"cluster " + c.StackID + ": rolls machines", "control plane: rolls machines", "nodegroup default-worker: rolls machines"} {
		if !strings.Contains(out, want) {
			t.Fatalf("plan of an image change lacks %q:\n%s", want, out)
		}
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", 10*time.Minute)
	after := machines()
	if len(after) != 2 {
		t.Errorf("%d Machines after the rollout, want 2: %v", len(after), sortedNames(after))
	}
	for name, uid := range after {
		for _, old := range before {
			if uid == old {
				t.Errorf("plan said rolls machines, but Machine %s was kept", name)
			}
		}
	}
}

func waitStatus(t *testing.T, sc *gophercloud.ServiceClient, id, status string, d time.Duration) *clusters.Cluster {
	t.Helper()
	deadline := time.Now().Add(d)
	for {
		c, err := clusters.Get(context.Background(), sc, id).Extract()
		if err == nil {
			if c.Status == status {
				return c
			}
			if strings.HasSuffix(c.Status, "_FAILED") {
				t.Fatalf("status %s (%s) while waiting for %s", c.Status, c.StatusReason, status)
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out after %s waiting for %s (last: %+v, %v)", d, status, c, err)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

func sameUIDs(a, b map[string]types.UID) bool {
	if len(a) != len(b) {
		return false
	}
	for n, u := range a {
		if b[n] != u {
			return false
		}
	}
	return true
}

func sortedNames(m map[string]types.UID) []string {
	out := make([]string, 0, len(m))
	for n := range m {
		out = append(out, n)
	}
	sort.Strings(out)
	return out
}
