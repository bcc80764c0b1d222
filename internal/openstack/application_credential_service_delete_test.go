package openstack

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"

	"github.com/openkeel/keel/internal/testing/keystonetest"
)

// A caller's credential is created with their token, in their name; keel's
// service user deletes it only with the admin role (Keystone's default
// policy for another user's credential): without it the deletion is a
// *ForbiddenError and the credential stays. Deleting one that is gone is
// no error.
func TestApplicationCredentialServiceDelete(t *testing.T) {
	ks := keystonetest.New(t)
	ks.AddUser(keystonetest.User{ID: "alice-id", Name: "alice", Password: "pw", ProjectID: "p1", ProjectName: "one", Roles: []string{"member"}})
	ks.AddUser(keystonetest.User{ID: "keel-admin-id", Name: "keel-admin", Password: "pw", ProjectID: "service-project-id", ProjectName: keystonetest.ServiceProject, Roles: []string{"admin"}})
	client := func(user, pass string) *Client {
		return New(Options{Region: keystonetest.Region, Auth: gophercloud.AuthOptions{IdentityEndpoint: ks.AuthURL,
			Username: user, Password: pass, DomainName: keystonetest.DomainName,
			Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName}}})
	}
	catalog := []tokens.CatalogEntry{{Type: "identity", Name: "keystone", Endpoints: []tokens.Endpoint{
		{Interface: "public", Region: keystonetest.Region, RegionID: keystonetest.Region, URL: ks.AuthURL}}}}
	tok := NewUserToken(ks.Issue(t, "alice", 0), catalog, time.Now().Add(time.Hour), nil)
	ctx := context.Background()
	asAlice := WithScope(ctx, Scope{ProjectID: "p1", UserID: "alice-id", Token: tok})

	service := client(keystonetest.ServiceUser, keystonetest.ServicePass)
	if _, err := service.CreateApplicationCredential(ctx, "c", "d"); err == nil {
		t.Fatal("a credential was created without the caller's token")
	}
	ac, err := service.CreateApplicationCredential(asAlice, "cluster-uuid", "keel cluster c (cluster-uuid)")
	if err != nil {
		t.Fatal(err)
	}
	if got := ks.ApplicationCredentials("alice-id"); len(got) != 1 || got[0].ID != ac.ID || got[0].Secret != ac.Secret || ac.UserID != "alice-id" {
		t.Fatalf("Keystone holds %+v, the client returned %v", got, ac)
	}

	var fb *ForbiddenError
	if err := service.DeleteApplicationCredential(ctx, "alice-id", ac.ID); !errors.As(err, &fb) {
		t.Fatalf("the non-admin service user's deletion: %v, want a ForbiddenError", err)
	}
	if len(ks.ApplicationCredentials("alice-id")) != 1 {
		t.Fatal("the refused deletion deleted the credential")
	}
	admin := client("keel-admin", "pw")
	if err := admin.DeleteApplicationCredential(ctx, "alice-id", ac.ID); err != nil {
		t.Fatal(err)
	}
	if got := ks.ApplicationCredentials("alice-id"); len(got) != 0 {
		t.Fatalf("still in Keystone: %+v", got)
	}
	if err := admin.DeleteApplicationCredential(ctx, "alice-id", ac.ID); err != nil {
		t.Errorf("deleting a credential already gone: %v", err)
	}
}
