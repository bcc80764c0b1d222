package server

import (
	"context"
	"strings"
	"testing"
	"time"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/quotasets"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/quotas"

	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// A project whose quota is too small for the cluster: the cluster ends
// CREATE_FAILED with a status_reason that names OpenStack's error (what
// magnum-cluster-api's users asked for in its issue #64). One keel (and
// CAPO) serves both cases, each in a project of its own, made before keel
// so that the projects are purged after CAPO stops.
//   - Nova allows one server: the real CAPO creates the master, Nova
//     refuses the worker (CAPO marks its server failed, and says only
//     "instance state ERROR is unexpected" on the machine).
//   - Neutron allows one security group (the project's default one) while
//     CAPO needs two more: CAPO reports Neutron's OverQuota as a transient
//     error and retries for ever; keel fails the create.
func TestRealOpenStackQuotaExceededGivesCreateFailed(t *testing.T) {
	t.Parallel() // waits on OpenStack and CAPO far more than it computes
	one := 1
	cloud := realopenstack.Attach(t)
	projects := []*realopenstack.Project{cloud.NewProject(t), cloud.NewProject(t)} // before keel: see inProject
	keel := startRealOpenStackKeel(t)
	for i, tc := range []struct {
		name  string
		limit func(ctx context.Context, t *testing.T, r *realOpenStack) error
		want  string
	}{{
		name: "nova instances",
		limit: func(ctx context.Context, t *testing.T, r *realOpenStack) error {
			compute, err := gcos.NewComputeV2(r.cloud.Admin(t), r.cloud.Endpoint())
			if err == nil {
				_, err = quotasets.Update(ctx, compute, r.project.ID, quotasets.UpdateOpts{Instances: &one}).Extract()
			}
			return err
		},
		want: "Quota exceeded for instances",
	}, {
		name: "neutron security groups",
		limit: func(ctx context.Context, t *testing.T, r *realOpenStack) error {
			network, err := gcos.NewNetworkV2(r.cloud.Admin(t), r.cloud.Endpoint())
			if err == nil {
				_, err = quotas.Update(ctx, network, r.project.ID, quotas.UpdateOpts{SecurityGroup: &one}).Extract()
			}
			return err
		},
		want: "Quota exceeded for resources: ['security_group']",
	}} {
		p := projects[i]
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			r := keel.inProject(t, p)
			if err := tc.limit(context.Background(), t, r); err != nil {
				t.Fatalf("setting the project's quota: %v", err)
			}
			id := r.createOne(t, "quota", r.template(t, nil).UUID)
			if reason := r.failedReason(t, id, 15*time.Minute); !strings.Contains(reason, tc.want) {
				t.Errorf("status_reason %q does not name OpenStack's quota error %q", reason, tc.want)
			}
		})
	}
}
