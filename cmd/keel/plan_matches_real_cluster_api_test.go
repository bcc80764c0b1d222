package main

import (
	"context"
	"log/slog"
	"maps"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	"k8s.io/apimachinery/pkg/types"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// keel plan's classification (no-op, in place, rolls machines) holds
// against Cluster API's own controllers, on the same commits, one cluster
// through three template upgrades:
//   - to a copy of its template: keel plan names no change, and Cluster API
//     changes no KubeadmControlPlane, MachineDeployment or Machine;
//   - to a template with another calico_tag (an addon payload): "in place",
//     and every Machine is kept;
//   - to a template with another image: "rolls machines" for the control
//     plane and the nodegroup, and Cluster API replaces every Machine before
//     the cluster is UPDATE_COMPLETE again (the status waits for the
//     topology controller and the rollout, not only for the counts).
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
	same := template("same", "ubuntu-2204-kube-v1.33.1", "v3.28.5")
	addon := template("addon", "ubuntu-2204-kube-v1.33.1", "v3.30.2")
	image := template("image", "ubuntu-2404-kube-v1.33.1", "v3.30.2")

	one := 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "planned", ClusterTemplateID: first, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c := waitStatus(t, sc, id, "CREATE_COMPLETE", 8*time.Minute)

	// objects are the cluster's Machines, KubeadmControlPlane and
	// MachineDeployments: uid and generation, by kind and name.
	type object struct {
		uid types.UID
		gen int64
	}
	objects := func() map[string]object {
		t.Helper()
		out := map[string]object{}
		sel := []client.ListOption{client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: c.StackID}}
		var ms clusterv1.MachineList
		var kcps controlplanev1.KubeadmControlPlaneList
		var mds clusterv1.MachineDeploymentList
		for _, l := range []client.ObjectList{&ms, &kcps, &mds} {
			if err := in.Client.List(ctx, l, sel...); err != nil {
				t.Fatal(err)
			}
		}
		for _, m := range ms.Items {
			out["Machine/"+m.Name] = object{m.UID, m.Generation}
		}
		for _, k := range kcps.Items {
			out["KubeadmControlPlane/"+k.Name] = object{k.UID, k.Generation}
		}
		for _, md := range mds.Items {
			out["MachineDeployment/"+md.Name] = object{md.UID, md.Generation}
		}
		return out
	}
	machines := func(objs map[string]object) map[string]types.UID {
		out := map[string]types.UID{}
		for k, o := range objs {
			if name, ok := strings.CutPrefix(k, "Machine/"); ok {
				out[name] = o.uid
			}
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

	before := objects()
	if len(machines(before)) != 2 {
		t.Fatalf("%d Machines in a 1+1 cluster, want 2: %v", len(machines(before)), before)
	}

	out := upgrade(same)
	if strings.Contains(out, "in place") || strings.Contains(out, "rolls machines") {
		t.Fatalf("plan of an upgrade to an identical template, want no change:\n%s", out)
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", 6*time.Minute)
	if after := objects(); !maps.Equal(before, after) {
		t.Fatalf("plan said no change, but Cluster API changed objects: %v → %v", before, after)
	}

	out = upgrade(addon)
	if !strings.Contains(out, "cluster "+c.StackID+": in place") || strings.Contains(out, "rolls machines") {
		t.Fatalf("plan of a calico_tag change, want in place and no machine rolled:\n%s", out)
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", 6*time.Minute)
	if after := machines(objects()); !maps.Equal(machines(before), after) {
		t.Fatalf("plan said in place, but Cluster API replaced Machines: %v → %v", machines(before), after)
	}

	out = upgrade(image)
	for _, want := range []string{"cluster " + c.StackID + ": rolls machines", "control plane: rolls machines", "nodegroup default-worker: rolls machines"} {
		if !strings.Contains(out, want) {
			t.Fatalf("plan of an image change lacks %q:\n%s", want, out)
		}
	}
	waitStatus(t, sc, id, "UPDATE_COMPLETE", 10*time.Minute)
	after := machines(objects())
	if len(after) != 2 {
		t.Errorf("%d Machines after the rollout, want 2: %v", len(after), after)
	}
	for name, uid := range after {
		for _, old := range machines(before) {
			if uid == old {
				t.Errorf("plan said rolls machines, but Machine %s was kept when the cluster was UPDATE_COMPLETE", name)
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
