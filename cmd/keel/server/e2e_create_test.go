package server

import (
	"context"
	"os/exec"
	"path"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/version"
)

// The walking skeleton end to end: gophercloud creates a template and a
// cluster; each is one commit the git CLI reads; the reconciler applies the
// rendered CAPI Cluster to a real kube-apiserver; Cluster API's own
// controllers provision it (with simulated OpenStack); the observer brings the status back; gophercloud sees CREATE_COMPLETE
// with the api_address, coe_version and counts.
func TestCreateClusterReachesCreateComplete(t *testing.T) {
	in, sc := startRealKeelWith(t, "1.12", nil)
	ctx := context.Background()

	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		Name: "k8s-v1-33", COE: "kubernetes", ImageID: "ubuntu-2204-kube-v1.33",
		FlavorID: "m1.medium", MasterFlavorID: "m1.large", ExternalNetworkID: "public",
		Labels: map[string]string{"kube_tag": "v1.33.4", "test": "test"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if tmpl.Labels["test"] != "test" || tmpl.NetworkDriver != "calico" {
		t.Fatalf("template echo: labels %v, network_driver %q", tmpl.Labels, tmpl.NetworkDriver)
	}

	masters, nodes := 1, 2
	uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{
		Name: "prod-a", ClusterTemplateID: tmpl.UUID, MasterCount: &masters, NodeCount: &nodes,
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}

	// Right after the 202 the cluster exists and is in progress (Magnum may
	// answer 404 here).
	first, err := clusters.Get(ctx, sc, uuid).Extract()
	if err != nil {
		t.Fatalf("GET right after create: %v", err)
	}
	if first.Status != "CREATE_IN_PROGRESS" {
		t.Fatalf("status right after create = %s, want CREATE_IN_PROGRESS", first.Status)
	}
	if !strings.HasPrefix(first.StackID, intent.StackIDPrefix) || len(first.StackID) != intent.StackIDLen {
		t.Fatalf("stack_id %q is not kube-xxxxx", first.StackID)
	}

	var got *clusters.Cluster
	deadline := time.Now().Add(realWait)
	for {
		got, err = clusters.Get(ctx, sc, "prod-a").Extract()
		if err != nil {
			t.Fatal(err)
		}
		if got.Status == "CREATE_COMPLETE" || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if got.Status != "CREATE_COMPLETE" {
		t.Fatalf("status = %s (%s), want CREATE_COMPLETE", got.Status, got.StatusReason)
	}
	if got.UUID != uuid || got.StackID != first.StackID || got.NodeCount != 2 || got.MasterCount != 1 {
		t.Errorf("cluster = uuid %s stack %s nodes %d masters %d", got.UUID, got.StackID, got.NodeCount, got.MasterCount)
	}
	if got.COEVersion != "v1.33.4" || !strings.HasPrefix(got.APIAddress, "https://") {
		t.Errorf("coe_version %q, api_address %q", got.COEVersion, got.APIAddress)
	}
	if len(got.MasterAddresses) != 1 || len(got.NodeAddresses) != 2 {
		t.Errorf("addresses: masters %v nodes %v", got.MasterAddresses, got.NodeAddresses)
	}

	// Git: one commit per mutation, readable by the git CLI.
	repo := in.Store.Dir()
	subjects := gitOut(t, repo, "log", "--format=%s", "main")
	if !strings.Contains(subjects, "clustertemplate k8s-v1-33: create") || !strings.Contains(subjects, "cluster prod-a: create") {
		t.Errorf("git log:\n%s", subjects)
	}
	if n := strings.Count(strings.TrimSpace(subjects), "\n") + 1; n != 3 { // init + template + cluster
		t.Errorf("%d commits, want 3:\n%s", n, subjects)
	}
	trailers := gitOut(t, repo, "log", "-1", "--format=%(trailers:key=Keel-Operation,valueonly)", "main")
	if strings.TrimSpace(trailers) != "create" {
		t.Errorf("Keel-Operation trailer = %q", trailers)
	}
	dir := intent.ClusterDir("p-"+t.Name(), "prod-a", got.StackID)
	rendered := gitOut(t, repo, "show", "main:"+path.Join(intent.RenderedPath(dir), "cluster.yaml"))
	if !strings.Contains(rendered, "name: "+got.StackID) {
		t.Errorf("rendered cluster.yaml does not name %s:\n%s", got.StackID, rendered)
	}

	// The management cluster holds the applied Cluster.
	var cl clusterv1.Cluster
	if err := in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: got.StackID}, &cl); err != nil {
		t.Fatal(err)
	}
	className, err := compiler.ClusterClassName(version.Version)
	if err != nil {
		t.Fatal(err)
	}
	if cl.Labels["cluster-uuid"] != uuid || cl.Spec.Topology.Version != "v1.33.4" ||
		cl.Spec.Topology.ClassRef.Name != className || *cl.Spec.Topology.ControlPlane.Replicas != 1 ||
		len(cl.Spec.Topology.Workers.MachineDeployments) != 1 || *cl.Spec.Topology.Workers.MachineDeployments[0].Replicas != 2 {
		t.Errorf("applied Cluster: labels %v topology %+v", cl.Labels, cl.Spec.Topology)
	}
}

func gitOut(t *testing.T, dir string, args ...string) string {
	t.Helper()
	out, err := exec.Command("git", append([]string{"-C", dir}, args...)...).CombinedOutput()
	if err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return string(out)
}
