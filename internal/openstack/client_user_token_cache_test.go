package openstack

import (
	"context"
	"fmt"
	"testing"
	"time"
)

// The caller's service clients are reused per token, never beyond the
// token's expiry, and for a bounded number of tokens.
func TestClientUserClientsCache(t *testing.T) {
	f, c := populated(t)
	withCallerResources(f)
	expires := time.Now().Add(2 * time.Minute)
	tok := NewUserToken("alice-token", userCatalog(f.URL), expires, nil)
	ctx := WithScope(context.Background(), Scope{ProjectID: "p1", UserID: "u1", Token: tok})
	discoveries := func() (n int) {
		for _, r := range f.log() {
			if r == "GET /user/image/" {
				n++
			}
		}
		return n
	}
	for range 3 {
		if _, err := c.Flavor(ctx, "42"); err != nil {
			t.Fatal(err)
		}
	}
	// The endpoints' version discovery ran once for the three lookups.
	if n := discoveries(); n != 1 {
		t.Fatalf("%d version discoveries of Glance for one token, want 1", n)
	}
	if len(c.users) != 1 {
		t.Fatalf("%d cached callers, want 1", len(c.users))
	}
	for _, e := range c.users {
		if e.until.After(expires) {
			t.Fatalf("cached until %s, after the token expires (%s)", e.until, expires)
		}
	}
	a, err := c.userServices(context.Background(), tok)
	if err != nil {
		t.Fatal(err)
	}
	b, err := c.userServices(context.Background(), NewUserToken("alice-token", userCatalog(f.URL), expires, nil))
	if err != nil || a.compute != b.compute {
		t.Fatalf("the same token built new clients (%v)", err)
	}

	// An expired token's clients are not kept.
	f.addUser("old-token", "u1", "p1")
	if _, err := c.userServices(context.Background(), NewUserToken("old-token", userCatalog(f.URL), time.Now().Add(-time.Second), nil)); err != nil {
		t.Fatal(err)
	}
	if len(c.users) != 1 {
		t.Fatalf("%d cached callers after an expired token, want 1", len(c.users))
	}

	defer func(n int) { maxUserClients = n }(maxUserClients)
	maxUserClients = 3
	for i := range 10 {
		f.addUser(fmt.Sprintf("token-%d", i), "u1", "p1")
		if _, err := c.userServices(context.Background(), NewUserToken(fmt.Sprintf("token-%d", i), userCatalog(f.URL), expires, nil)); err != nil {
			t.Fatal(err)
		}
		if len(c.users) > maxUserClients {
			t.Fatalf("%d cached callers, bound %d", len(c.users), maxUserClients)
		}
	}
}
