package server

import (
	"context"
	"strings"
	"testing"
	"time"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/quotasets"
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
	id := r.createOne(t, "quota", r.template(t, nil).UUID)
	if reason := r.failedReason(t, id, 15*time.Minute); !strings.Contains(reason, "Quota exceeded for instances") {
		t.Errorf("status_reason %q does not name Nova's quota error", reason)
	}
}
