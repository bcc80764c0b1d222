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

// A Machine whose server cannot be created (a Nova quota, injected through
// the simulator) fails the create with that machine's own reason: the
// reference driver never leaves CREATE_IN_PROGRESS.
func TestMachineFailureGivesCreateFailedWithItsReason(t *testing.T) {
	in, sc := startKeelStep(t, "1.12", 700*time.Millisecond)
	ctx := context.Background()
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		COE: "kubernetes", ImageID: "img", FlavorID: "m1.medium", MasterFlavorID: "m1.medium",
		Labels: map[string]string{"kube_tag": "v1.33.4"},
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "doomed", ClusterTemplateID: tmpl.UUID}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c, err := clusters.Get(ctx, sc, uuid).Extract()
	if err != nil {
		t.Fatal(err)
	}

	// As soon as the CAPI Cluster exists, make its machines fail.
	const reason = "Quota exceeded for instances: Requested 1, but already used 10 of 10 instances"
	key := client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID}
	deadline := time.Now().Add(30 * time.Second)
	for {
		var cl clusterv1.Cluster
		err := in.Client.Get(ctx, key, &cl)
		if err == nil {
			patch := client.RawPatch("application/merge-patch+json",
				[]byte(`{"metadata":{"annotations":{"`+simulator.AnnotationFailMachines+`":"`+reason+`"}}}`))
			if err := in.Client.Patch(ctx, &cl, patch); err != nil {
				t.Fatal(err)
			}
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the CAPI Cluster never appeared: %v", err)
		}
		time.Sleep(50 * time.Millisecond)
	}

	var got *clusters.Cluster
	deadline = time.Now().Add(60 * time.Second)
	for {
		if got, err = clusters.Get(ctx, sc, uuid).Extract(); err != nil {
			t.Fatal(err)
		}
		if got.Status != "CREATE_IN_PROGRESS" || time.Now().After(deadline) {
			break
		}
		time.Sleep(200 * time.Millisecond)
	}
	if got.Status != "CREATE_FAILED" {
		t.Fatalf("status %s (%s), want CREATE_FAILED", got.Status, got.StatusReason)
	}
	if !strings.Contains(got.StatusReason, "Machine ") || !strings.Contains(got.StatusReason, "Quota exceeded for instances") {
		t.Errorf("status_reason %q does not name the machine and its reason", got.StatusReason)
	}
	if len(got.Faults) == 0 {
		t.Errorf("no faults on a failed cluster")
	}
}
