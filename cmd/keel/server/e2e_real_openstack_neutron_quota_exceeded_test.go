package server

import (
	"context"
	"strings"
	"testing"
	"time"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/quotas"
)

// A project whose Neutron quota allows one security group (its default
// one) while the real CAPO needs two more for the cluster: CAPO reports
// Neutron's OverQuota as a transient error and retries for ever, and keel
// fails the create with Neutron's words instead of waiting until
// create_timeout.
func TestRealOpenStackNeutronQuotaExceededGivesCreateFailed(t *testing.T) {
	t.Parallel() // waits on OpenStack and CAPO far more than it computes
	ctx := context.Background()
	r := startRealOpenStackKeel(t)
	network, err := gcos.NewNetworkV2(r.cloud.Admin(t), r.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	one := 1
	if _, err := quotas.Update(ctx, network, r.project.ID, quotas.UpdateOpts{SecurityGroup: &one}).Extract(); err != nil {
		t.Fatalf("setting the project's security group quota to 1: %v", err)
	}
	id := r.createOne(t, "sg-quota", r.template(t, nil).UUID)
	reason := r.failedReason(t, id, 10*time.Minute)
	if want := "Quota exceeded for resources: ['security_group']"; !strings.Contains(reason, want) {
		t.Errorf("status_reason %q does not name Neutron's quota error %q", reason, want)
	}
}
