package openstack

import (
	"context"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"

	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Keystone: the caller's token creates an application
// credential of the caller (restricted, no expiry) that authenticates, as
// CAPO will with the clouds.yaml keel writes; keel's service user deletes
// it (the teardown has no caller), after which it authenticates no more,
// and deleting it again is no error.
func TestRealOpenStackApplicationCredentialCreatedAndDeleted(t *testing.T) {
	t.Parallel() // each in a project of its own: the load balancer waits overlap the rest
	cloud, c := realCloud(t)
	p := cloud.NewProject(t)

	ac, err := c.CreateApplicationCredential(asCaller(t, p), "cluster-uuid-1", "keel cluster c1 (cluster-uuid-1)")
	if err != nil || ac == nil || ac.ID == "" || ac.Secret == "" || ac.UserID != p.UserID {
		t.Fatalf("create: %v %v", ac, err)
	}
	auth := gophercloud.AuthOptions{IdentityEndpoint: cloud.AuthURL, ApplicationCredentialID: ac.ID,
		ApplicationCredentialSecret: ac.Secret}
	if _, err := realopenstack.Authenticate(auth); err != nil {
		t.Fatalf("authenticating with the new credential: %v", err)
	}
	ic := identityOf(t, cloud, p)
	got, err := applicationcredentials.Get(context.Background(), ic, p.UserID, ac.ID).Extract()
	if err != nil || got.Unrestricted || !got.ExpiresAt.IsZero() || got.ProjectID != p.ID {
		t.Fatalf("Keystone holds %+v (%v): want restricted, no expiry, in project %s", got, err, p.ID)
	}

	for i := range 2 {
		if err := c.DeleteApplicationCredential(context.Background(), p.UserID, ac.ID); err != nil {
			t.Fatalf("delete %d as keel's service user: %v", i+1, err)
		}
	}
	if _, err := realopenstack.Authenticate(auth); err == nil {
		t.Fatal("the deleted credential still authenticates")
	}
	if _, err := applicationcredentials.Get(context.Background(), ic, p.UserID, ac.ID).Extract(); !isNotFound(err) {
		t.Fatalf("the credential after its delete: %v, want 404", err)
	}
}
