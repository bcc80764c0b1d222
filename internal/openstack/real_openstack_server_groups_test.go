package openstack

import (
	"context"
	"testing"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
)

// Against the real Nova: EnsureServerGroup, as the caller, creates the
// group in the caller's project with the policy asked, and a second call
// (a retry) adopts it; another project's group of that name is not the
// caller's. keel's service user (no token: the teardown's case) deletes
// it, and a group already gone is no error.
func TestRealOpenStackServerGroupsEnsuredOnceAndDeleted(t *testing.T) {
	t.Parallel() // each in a project of its own: the load balancer waits overlap the rest
	cloud, c := realCloud(t)
	p, other := cloud.NewProject(t), cloud.NewProject(t)
	ctx := asCaller(t, p)
	theirs, _, err := c.EnsureServerGroup(asCaller(t, other), "kube-abcde", "affinity")
	if err != nil {
		t.Fatalf("the other project's group: %v", err)
	}

	id, created, err := c.EnsureServerGroup(ctx, "kube-abcde", "soft-anti-affinity")
	if err != nil || !created || id == "" || id == theirs {
		t.Fatalf("first ensure: %q created %v, %v (the other project's is %s)", id, created, err, theirs)
	}
	again, created, err := c.EnsureServerGroup(ctx, "kube-abcde", "soft-anti-affinity")
	if err != nil || created || again != id {
		t.Fatalf("second ensure: %q created %v, %v; want %q adopted", again, created, err, id)
	}
	cc, err := gcos.NewComputeV2(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	cc.Microversion = "2.64"
	g, err := servergroups.Get(context.Background(), cc, id).Extract()
	if err != nil || g.Name != "kube-abcde" || g.Policy == nil || *g.Policy != "soft-anti-affinity" {
		t.Fatalf("Nova holds %+v (%v), want kube-abcde with policy soft-anti-affinity", g, err)
	}

	for i := range 2 {
		if err := c.DeleteServerGroup(context.Background(), id); err != nil {
			t.Fatalf("delete %d as keel's service user: %v", i+1, err)
		}
	}
	if _, err := servergroups.Get(context.Background(), cc, id).Extract(); !isNotFound(err) {
		t.Fatalf("the group after its delete: %v, want 404", err)
	}
	if inv := p.Inventory(t); len(inv) != 0 {
		t.Fatalf("the project holds %v after the delete", inv)
	}
}
