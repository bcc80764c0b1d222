package lookup

import (
	"context"
	"errors"
	"net/http"
	"testing"

	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/restapi/apierr"
)

// countingCloud answers every flavor lookup, failing for "gone", and counts
// what it is asked.
type countingCloud struct {
	openstack.Given
	flavors int
	scopes  []openstack.Scope
}

func (c *countingCloud) Flavor(ctx context.Context, ref string) (*openstack.Flavor, error) {
	c.flavors++
	c.scopes = append(c.scopes, openstack.ScopeOf(ctx))
	if ref == "gone" {
		return nil, &openstack.NotFoundError{Kind: openstack.KindFlavor, Ref: ref}
	}
	return &openstack.Flavor{ID: ref, Name: "m1." + ref}, nil
}

// A request's cache asks the cloud once per reference, a failure included,
// in the request's project and user; the failure is Magnum's 400.
func TestCacheRemembersAnswers(t *testing.T) {
	cloud := &countingCloud{}
	c := New(cloud, openstack.Scope{ProjectID: "p1", UserID: "u1"})
	ctx := context.Background()
	for i := 0; i < 3; i++ {
		if f, err := c.Flavor(ctx, "3"); err != nil || f.Name != "m1.3" {
			t.Fatalf("flavor 3: %v %v", f, err)
		}
		if _, err := c.Flavor(ctx, "gone"); err == nil {
			t.Fatal("flavor gone found")
		}
	}
	if cloud.flavors != 2 {
		t.Fatalf("%d lookups for 2 references asked 3 times each, want 2", cloud.flavors)
	}
	if s := cloud.scopes[0]; s.ProjectID != "p1" || s.UserID != "u1" {
		t.Fatalf("looked up in scope %+v", s)
	}
	_, err := c.Flavor(ctx, "gone")
	var e *apierr.Error
	if !errors.As(Error(err), &e) || e.Status != http.StatusBadRequest || e.Msg != "Unable to find flavor gone." {
		t.Fatalf("Error(%v) = %v", err, Error(err))
	}
}
