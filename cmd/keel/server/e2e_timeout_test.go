package server

import (
	"context"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// A cluster that does not become ready within create_timeout is
// CREATE_FAILED with a reason saying so and why it was still waiting (the
// reference driver ignores create_timeout and stays CREATE_IN_PROGRESS
// forever). Its provisioning is frozen as an operator freezes it: the CAPI
// Cluster's spec.paused, which Cluster API's controllers and CAPO honour.
func TestCreateTimeoutGivesCreateFailed(t *testing.T) {
	in, sc := startRealKeelWith(t, "1.12", nil)
	ctx := context.Background()
	tmpl := realTemplate(t, sc, "", "calico", nil)
	one := 1
	uuid, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "slow", ClusterTemplateID: tmpl.UUID, CreateTimeout: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c, err := clusters.Get(ctx, sc, uuid).Extract()
	if err != nil {
		t.Fatal(err)
	}
	var cl clusterv1.Cluster
	waitFor(t, time.Minute, "the CAPI Cluster", func() bool {
		return in.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: c.StackID}, &cl) == nil
	})
	if err := in.Client.Patch(ctx, &cl, client.RawPatch("application/merge-patch+json", []byte(`{"spec":{"paused":true}}`))); err != nil {
		t.Fatal(err)
	}

	var got *clusters.Cluster
	waitFor(t, 3*time.Minute, "the create to end", func() bool {
		got, err = clusters.Get(ctx, sc, uuid).Extract()
		return err == nil && got.Status != "CREATE_IN_PROGRESS"
	})
	t.Logf("status %s: %s", got.Status, got.StatusReason)
	const prefix = "timed out after 1m0s: "
	if got.Status != "CREATE_FAILED" || !strings.HasPrefix(got.StatusReason, prefix) || strings.TrimSpace(strings.TrimPrefix(got.StatusReason, prefix)) == "" {
		t.Fatalf("status %s (%s), want CREATE_FAILED %q and why", got.Status, got.StatusReason, prefix)
	}
}
