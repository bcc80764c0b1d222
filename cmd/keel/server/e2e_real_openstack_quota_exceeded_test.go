package server

import (
	"context"
	"strings"
	"testing"
	"time"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/quotasets"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
)

// A project whose Nova quota allows one server: the real CAPO creates the
// master, Nova refuses the worker, and the cluster ends CREATE_FAILED with
// a status_reason that names Nova's error (what magnum-cluster-api's
// users asked for in its issue #64), not only CAPO's "instance state ERROR
// is unexpected".
func TestRealOpenStackQuotaExceededGivesCreateFailed(t *testing.T) {
	t.Parallel() // waits on OpenStack and CAPO far more than it computes
	ctx := context.Background()
	r := startRealOpenStackKeel(t)
	compute, err := gcos.NewComputeV2(r.cloud.Admin(t), r.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	if _, err := quotasets.Update(ctx, compute, r.project.ID, quotasets.UpdateOpts{Instances: &one}).Extract(); err != nil {
		t.Fatalf("setting the project's instance quota to 1: %v", err)
	}
	id, err := clusters.Create(ctx, r.sc, clusters.CreateOpts{Name: "quota", ClusterTemplateID: r.template(t, nil).UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	var c *clusters.Cluster
	waitFor(t, 15*time.Minute, "CREATE_FAILED", func() bool {
		c, err = clusters.Get(ctx, r.sc, id).Extract()
		return err == nil && c.Status == "CREATE_FAILED"
	})
	if !strings.Contains(c.StatusReason, "Quota exceeded for instances") {
		t.Errorf("status_reason %q does not name Nova's quota error", c.StatusReason)
	}
}
