package openstack

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

const imgP1 = "6f1c9c5e-0000-4000-8000-0000000000e1"

// userCatalog is a caller's catalog: the fake's services under /user in
// RegionOne's public interface, and decoys (another region, the internal
// interface) that must not be used.
func userCatalog(base string) []tokens.CatalogEntry {
	ep := func(typ, path string) tokens.CatalogEntry {
		return tokens.CatalogEntry{Type: typ, Name: typ, Endpoints: []tokens.Endpoint{
			{Interface: "public", Region: "RegionTwo", RegionID: "RegionTwo", URL: base + "/region-two" + path},
			{Interface: "internal", Region: "RegionOne", RegionID: "RegionOne", URL: base + "/internal" + path},
			{Interface: "public", Region: "RegionOne", RegionID: "RegionOne", URL: base + "/user" + path},
		}}
	}
	return []tokens.CatalogEntry{
		ep("identity", "/identity/v3/"),
		ep("compute", "/compute/v2.1/"),
		ep("image", "/image/"),
		ep("network", "/network/"),
		ep("volumev3", "/volume/v3/"+fakeProject+"/"),
	}
}

// withCallerResources adds what only the caller (u1 of p1, token
// alice-token) may see: a flavor shared with p1, p1's private image, and
// makes Nova refuse keel's service user u1's keypairs.
func withCallerResources(f *fakeCloud) {
	f.serviceNotAdmin = true
	f.flavors = append(f.flavors, map[string]any{"id": "77", "name": "p1.private", "vcpus": 2, "ram": 4096, "disk": 20, "_projects": []string{"p1"}})
	f.images = append(f.images, map[string]any{"id": imgP1, "name": "p1-image", "visibility": "private", "owner": "p1", "os_distro": "ubuntu", "status": "active"})
	f.addUser("alice-token", "u1", "p1")
}

// With the caller's token in the scope, every lookup goes to the caller's
// catalog (configured region and interface) with that token, and sees what
// the caller sees: their keypair, their project's private flavor and image.
// Without it, keel's service user asks, and sees none of them.
func TestClientLooksUpWithTheCallersToken(t *testing.T) {
	f, c := populated(t)
	withCallerResources(f)
	tok := NewUserToken("alice-token", userCatalog(f.URL), time.Now().Add(time.Hour), nil)
	ctx := WithScope(context.Background(), Scope{ProjectID: "p1", UserID: "u1", Token: tok})

	if fl, err := c.Flavor(ctx, "p1.private"); err != nil || fl.ID != "77" {
		t.Fatalf("the caller's private flavor: %+v %v", fl, err)
	}
	if im, err := c.Image(ctx, "p1-image"); err != nil || im.UUID != imgP1 {
		t.Fatalf("the caller's private image: %+v %v", im, err)
	}
	if err := c.Keypair(ctx, "mykey"); err != nil {
		t.Fatalf("the caller's keypair: %v", err)
	}
	wantNotFound(t, c.Keypair(ctx, "otherkey"), KindKeypair)
	if n, err := c.ExternalNetwork(ctx, "public"); err != nil || n.ID != extNetID {
		t.Fatalf("external network: %+v %v", n, err)
	}
	if err := c.VolumeType(ctx, "ssd"); err != nil {
		t.Fatalf("volume type: %v", err)
	}
	// keel's project filtering still applies: p2's network is not p1's.
	_, err := c.Network(ctx, otherNetID)
	wantNotFound(t, err, KindNetwork)

	reqs, auths := f.log(), f.auths()
	if len(reqs) == 0 {
		t.Fatal("no request reached the services")
	}
	for i, r := range reqs {
		if !strings.HasPrefix(r, "GET /user/") || auths[i] != "alice-token" {
			t.Errorf("request %q with token %q: want the caller's catalog (RegionOne, public) and token", r, auths[i])
		}
		if strings.Contains(r, "user_id=") {
			t.Errorf("request %q names a user: the caller's own keypairs need none", r)
		}
	}

	// Without the caller's token (noauth, or no catalog), keel's service
	// user asks on the caller's behalf and cannot see the caller's things.
	for name, ctx := range map[string]context.Context{
		"no token":   scoped(),
		"no catalog": WithScope(context.Background(), Scope{ProjectID: "p1", UserID: "u1", Token: NewUserToken("alice-token", nil, time.Now().Add(time.Hour), nil)}),
	} {
		before := len(f.log())
		_, err := c.Flavor(ctx, "p1.private")
		wantNotFound(t, err, KindFlavor)
		_, err = c.Image(ctx, "p1-image")
		wantNotFound(t, err, KindImage)
		var fb *ForbiddenError
		if err := c.Keypair(ctx, "mykey"); !errors.As(err, &fb) {
			t.Fatalf("%s: the service user reading u1's keypair: %v, want Nova's refusal", name, err)
		}
		reqs, auths := f.log()[before:], f.auths()[before:]
		for i, r := range reqs {
			if strings.HasPrefix(r, "GET /user/") || (auths[i] != "fake-token" && r != "POST /identity/v3/auth/tokens") {
				t.Errorf("%s: request %q with token %q: want the service user's", name, r, auths[i])
			}
		}
	}
}
