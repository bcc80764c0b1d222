package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/simulator"
)

// A cluster that does not become ready within create_timeout is
// CREATE_FAILED with a reason saying so (the reference driver ignores
// create_timeout and stays CREATE_IN_PROGRESS forever).
func TestCreateTimeoutGivesCreateFailed(t *testing.T) {
	in, sc := startKeelStep(t, "1.12", time.Second)
	ctx := context.Background()
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		COE: "kubernetes", ImageID: "img", FlavorID: "m1.medium", MasterFlavorID: "m1.medium",
		Labels: map[string]string{"kube_tag": "v1.33.4"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "slow", ClusterTemplateID: tmpl.UUID, CreateTimeout: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c, err := clusters.Get(ctx, sc, uuid).Extract()
	if err != nil {
		t.Fatal(err)
	}
	// Freeze the simulated provisioning as soon as the CAPI Cluster exists.
	key := client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var cl clusterv1.Cluster
		if err := in.Client.Get(ctx, key, &cl); err == nil {
			patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"`+simulator.AnnotationPause+`":"true"}}}`))
			if err := in.Client.Patch(ctx, &cl, patch); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the CAPI Cluster never appeared")
		}
		time.Sleep(20 * time.Millisecond)
	}

	var got *clusters.Cluster
	deadline = time.Now().Add(100 * time.Second)
	for {
		if got, err = clusters.Get(ctx, sc, uuid).Extract(); err != nil {
			t.Fatal(err)
		}
		if got.Status != "CREATE_IN_PROGRESS" || time.Now().After(deadline) {
			break
		}
		time.Sleep(time.Second)
	}
	if got.Status != "CREATE_FAILED" || !strings.Contains(got.StatusReason, "timed out after 1m0s") {
		t.Fatalf("status %s (%s), want CREATE_FAILED timed out after 1m0s", got.Status, got.StatusReason)
	}
}
