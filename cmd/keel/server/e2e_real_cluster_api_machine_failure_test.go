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
	"github.com/openkeel/keel/simulator/capo"
)

// With Cluster API's own controllers, a server Nova puts in ERROR (reported
// as the real CAPO v0.14.7 reports it on the real OpenStack: its
// OpenStackServer in ERROR, InstanceStateError, and the OpenStackMachine
// waiting for it without a failure, so that Cluster API never fails the
// Machine) fails the create with that server's reason, well before
// create_timeout.
func TestRealClusterAPIMachineFailureGivesCreateFailed(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)

	tmpl := realTemplate(t, sc, "", "calico", nil)
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
	if !strings.Contains(c.StatusReason, "OpenStackServer ") || !strings.Contains(c.StatusReason, "InstanceStateError") {
		t.Errorf("status_reason %q does not name the server and CAPO's reason", c.StatusReason)
	}
	if len(c.Faults) == 0 {
		t.Errorf("no faults on a failed cluster")
	}
}
