package openstack

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/applicationcredentials"
)

// ApplicationCredential is the Keystone application credential of one
// cluster: the identity CAPO authenticates with (clouds.yaml). Secret is
// only known when Keystone creates it; it prints as [redacted].
type ApplicationCredential struct {
	ID     string
	Secret string
	// UserID owns the credential (the user who created the cluster).
	UserID string
}

// String hides the secret from fmt.
func (a ApplicationCredential) String() string {
	return fmt.Sprintf("application credential %s of user %s", a.ID, a.UserID)
}

// ApplicationCredentials creates and deletes the per-cluster application
// credentials, as Magnum's Cluster API driver does: created in the
// requesting user's context, deleted once the cluster is gone.
type ApplicationCredentials interface {
	// CreateApplicationCredential creates a credential of the Scope's user
	// with the Scope's Token, with the token's roles (none passed), not
	// unrestricted, without expiry. nil, nil: this cloud makes none (Given,
	// or no caller token), the cluster keeps the configured credential.
	CreateApplicationCredential(ctx context.Context, name, description string) (*ApplicationCredential, error)
	// DeleteApplicationCredential deletes a credential of userID: with the
	// Scope's Token when it carries one, else as keel's service user
	// (Keystone's default policy lets only admins delete another user's
	// credential). A credential already gone is not an error; a refusal is
	// a *ForbiddenError of KindApplicationCredential.
	DeleteApplicationCredential(ctx context.Context, userID, id string) error
}

// KindApplicationCredential names application credentials in errors.
const KindApplicationCredential Kind = "application credential"

var (
	_ ApplicationCredentials = (*Client)(nil)
	_ ApplicationCredentials = Given{}
)

// errNoUserToken: a credential is only ever created as the caller, never
// as keel's service user (it would then belong to keel).
var errNoUserToken = errors.New("openstack: creating an application credential needs the caller's token")

// identityClient returns the Keystone client of the Scope: the caller's
// (their token, their catalog's identity endpoint) or keel's service
// user's.
func (c *Client) identityClient(ctx context.Context) (*gophercloud.ServiceClient, *UserToken, error) {
	eo := gophercloud.EndpointOpts{Region: c.opts.Region, Availability: c.opts.Availability}
	if eo.Availability == "" {
		// A zero EndpointOpts makes gophercloud skip the catalog.
		eo.Availability = gophercloud.AvailabilityPublic
	}
	if tok := ScopeOf(ctx).Token; tok != nil {
		ic, err := gcos.NewIdentityV3(c.userProvider(ctx, tok), eo)
		if err != nil {
			return nil, nil, fmt.Errorf("openstack: the caller's identity endpoint: %w", err)
		}
		return ic, tok, nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.identity != nil {
		return c.identity, nil, nil
	}
	// The service user's provider, shared with the lookups; deleting a
	// credential needs only the identity endpoint of its catalog.
	provider, err := c.serviceProviderLocked(ctx)
	if err != nil {
		return nil, nil, err
	}
	ic, err := gcos.NewIdentityV3(provider, eo)
	if err != nil {
		return nil, nil, fmt.Errorf("openstack: service catalog: %w", err)
	}
	c.identity = ic
	return ic, nil, nil
}

// CreateApplicationCredential creates the caller's credential with their
// token. No expiry: the cluster lives until deleted, and an expired
// credential would silently break CAPO (the reference sets none either).
func (c *Client) CreateApplicationCredential(ctx context.Context, name, description string) (*ApplicationCredential, error) {
	scope := ScopeOf(ctx)
	if scope.Token == nil || scope.UserID == "" {
		return nil, errNoUserToken
	}
	ic, tok, err := c.identityClient(ctx)
	if err != nil {
		return nil, err
	}
	ac, err := applicationcredentials.Create(ctx, ic, scope.UserID, applicationcredentials.CreateOpts{
		Name: name, Description: description, Unrestricted: false,
	}).Extract()
	if err != nil {
		switch {
		case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
			return nil, &ForbiddenError{Kind: KindApplicationCredential, Ref: name}
		case gophercloud.ResponseCodeIs(err, http.StatusUnauthorized):
			c.rejected(tok)
			return nil, &UnauthorizedError{Kind: KindApplicationCredential, Ref: name, Service: "keystone"}
		}
		return nil, fmt.Errorf("openstack: creating application credential %q: %w", name, err)
	}
	return &ApplicationCredential{ID: ac.ID, Secret: ac.Secret, UserID: scope.UserID}, nil
}

// DeleteApplicationCredential deletes a credential; NotFound is success.
func (c *Client) DeleteApplicationCredential(ctx context.Context, userID, id string) error {
	ic, _, err := c.identityClient(ctx)
	if err != nil {
		return err
	}
	err = applicationcredentials.Delete(ctx, ic, userID, id).ExtractErr()
	switch {
	case err == nil, isNotFound(err):
		return nil
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		return &ForbiddenError{Kind: KindApplicationCredential, Ref: id}
	}
	return fmt.Errorf("openstack: deleting application credential %s of user %s: %w", id, userID, err)
}

// CreateApplicationCredential makes none: without OpenStack the cluster
// keeps the configured (or placeholder) credential.
func (Given) CreateApplicationCredential(context.Context, string, string) (*ApplicationCredential, error) {
	return nil, nil
}

// DeleteApplicationCredential has nothing to delete.
func (Given) DeleteApplicationCredential(context.Context, string, string) error { return nil }
