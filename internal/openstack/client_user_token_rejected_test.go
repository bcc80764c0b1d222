package openstack

import (
	"context"
	"errors"
	"testing"
	"time"
)

// A service refusing the caller's token (401: expired or revoked since
// Keystone validated it) is an UnauthorizedError naming the service; the
// validator is told, the caller's clients are dropped, and keel does not
// retry as its service user.
func TestClientUserTokenRefused(t *testing.T) {
	f, c := populated(t)
	withCallerResources(f)
	told := 0
	tok := NewUserToken("alice-token", userCatalog(f.URL), time.Now().Add(time.Hour), func() { told++ })
	ctx := WithScope(context.Background(), Scope{ProjectID: "p1", UserID: "u1", Token: tok})
	if _, err := c.Flavor(ctx, "p1.private"); err != nil {
		t.Fatal(err)
	}
	f.revoke("alice-token")

	_, err := c.Flavor(ctx, "p1.private")
	var ue *UnauthorizedError
	if !errors.As(err, &ue) || ue.Kind != KindFlavor || ue.Ref != "p1.private" || ue.Service != "nova" {
		t.Fatalf("got %v, want nova's UnauthorizedError for flavor p1.private", err)
	}
	if told != 1 {
		t.Fatalf("the validator was told %d times, want 1", told)
	}
	if len(c.users) != 0 {
		t.Fatalf("the refused token's clients are still cached: %d", len(c.users))
	}
	err = c.Keypair(ctx, "mykey")
	if !errors.As(err, &ue) || ue.Kind != KindKeypair || ue.Service != "nova" {
		t.Fatalf("keypair: got %v, want nova's UnauthorizedError", err)
	}
	for i, a := range f.auths() {
		if a != "alice-token" {
			t.Fatalf("request %q used token %q: keel fell back to its service user", f.log()[i], a)
		}
	}
}
