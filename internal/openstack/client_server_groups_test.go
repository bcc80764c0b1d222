package openstack

import (
	"context"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/novatest"
)

// EnsureServerGroup creates the group in the caller's project with the
// policy asked, once: a second call (a retry) adopts it, as it adopts a
// group of that name made before keel asked; another project's group of
// the same name is not the caller's. Two groups of one name are ambiguous.
// DeleteServerGroup deletes it, and a group already gone is no error.
func TestClientEnsuresServerGroupsOnce(t *testing.T) {
	f, c := populated(t)
	f.addUser("alice-token", "u1", "p1")
	tok := NewUserToken("alice-token", userCatalog(f.URL), time.Now().Add(time.Hour), nil)
	ctx := WithScope(context.Background(), Scope{ProjectID: "p1", UserID: "u1", Token: tok})
	f.groups.Add(novatest.Group{Name: "kube-abcde", ProjectID: "p2", Policies: []string{"affinity"}})
	earlier := f.groups.Add(novatest.Group{Name: "kube-abcde-ng1", ProjectID: "p1", Policies: []string{"anti-affinity"}})

	id, created, err := c.EnsureServerGroup(ctx, "kube-abcde", "soft-anti-affinity")
	if err != nil || !created || id == "" {
		t.Fatalf("first ensure: %q created %v, %v", id, created, err)
	}
	again, created, err := c.EnsureServerGroup(ctx, "kube-abcde", "soft-anti-affinity")
	if err != nil || created || again != id {
		t.Fatalf("second ensure: %q created %v, %v; want %q adopted", again, created, err, id)
	}
	adopted, created, err := c.EnsureServerGroup(ctx, "kube-abcde-ng1", "affinity")
	if err != nil || created || adopted != earlier.ID {
		t.Fatalf("ensure of an existing group: %q created %v, %v; want %q adopted", adopted, created, err, earlier.ID)
	}
	mine := f.groups.Groups("p1")
	if len(mine) != 2 || f.groups.Creates() != 1 {
		t.Fatalf("p1 holds %+v after %d creates, want 2 groups after 1", mine, f.groups.Creates())
	}
	for _, g := range mine {
		if g.ID == id && (len(g.Policies) != 1 || g.Policies[0] != "soft-anti-affinity" || g.UserID != "u1") {
			t.Errorf("created group %+v: want policy soft-anti-affinity, user u1", g)
		}
	}

	f.groups.Add(novatest.Group{Name: "twice", ProjectID: "p1"})
	f.groups.Add(novatest.Group{Name: "twice", ProjectID: "p1"})
	_, _, err = c.EnsureServerGroup(ctx, "twice", "affinity")
	wantAmbiguous(t, err, KindServerGroup)

	if err := c.DeleteServerGroup(ctx, id); err != nil {
		t.Fatal(err)
	}
	if err := c.DeleteServerGroup(ctx, id); err != nil {
		t.Fatalf("deleting a group already gone: %v", err)
	}
	if d := f.groups.Deletes(); len(d) != 1 || d[0] != id {
		t.Fatalf("deleted %v, want [%s]", d, id)
	}
	// Keel's service user (an admin) deletes another project's group.
	if err := c.DeleteServerGroup(context.Background(), earlier.ID); err != nil {
		t.Fatal(err)
	}
	if len(f.groups.Groups("p1")) != 2 { // the two "twice"
		t.Fatalf("p1 holds %+v", f.groups.Groups("p1"))
	}
}
