// Package lookup is one request's view of the OpenStack cloud: the
// resources a change references, looked up as the caller (its project and
// user and, under Keystone, its token) and remembered, errors included, so
// that resolving them again inside a commit, which may run more than once,
// asks the cloud nothing new; and Magnum's error for a failed lookup.
package lookup

import (
	"context"
	"errors"
	"fmt"
	"net/http"

	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
)

// Cache is an openstack.Cloud for one request.
type Cache struct {
	cloud   openstack.Cloud
	scope   openstack.Scope
	flavors map[string]answer[*openstack.Flavor]
	images  map[string]answer[*openstack.Image]
	nets    map[string]answer[*openstack.Network] // "ext:" or "fixed:" + ref
	subnets map[string]answer[*openstack.Subnet]  // network ID + "/" + ref
	vtypes  map[string]answer[bool]
	groups  map[string]answer[string] // server group ID by name
	created map[string]string         // the groups this request created, ID by name
}

var _ openstack.Cloud = (*Cache)(nil)

// New is an empty cache over cloud for scope's project and user.
func New(cloud openstack.Cloud, scope openstack.Scope) *Cache {
	return &Cache{
		cloud: cloud, scope: scope,
		flavors: map[string]answer[*openstack.Flavor]{}, images: map[string]answer[*openstack.Image]{},
		nets: map[string]answer[*openstack.Network]{}, subnets: map[string]answer[*openstack.Subnet]{},
		vtypes: map[string]answer[bool]{}, groups: map[string]answer[string]{}, created: map[string]string{},
	}
}

type answer[T any] struct {
	v   T
	err error
}

func cached[T any](m map[string]answer[T], key string, fn func() (T, error)) (T, error) {
	if a, ok := m[key]; ok {
		return a.v, a.err
	}
	v, err := fn()
	m[key] = answer[T]{v, err}
	return v, err
}

// ctx scopes a lookup to the cache's project and user and, under Keystone,
// to the caller's token (taken from the request's context), with which the
// lookup then runs, as Magnum's run with the request's token.
func (c *Cache) ctx(ctx context.Context) context.Context {
	scope := c.scope
	if creds := auth.FromContext(ctx); creds != nil && scope.Token == nil {
		scope.Token = creds.Token
	}
	return openstack.WithScope(ctx, scope)
}

// Flavor implements openstack.Cloud.
func (c *Cache) Flavor(ctx context.Context, ref string) (*openstack.Flavor, error) {
	return cached(c.flavors, ref, func() (*openstack.Flavor, error) { return c.cloud.Flavor(c.ctx(ctx), ref) })
}

// Image implements openstack.Cloud.
func (c *Cache) Image(ctx context.Context, ref string) (*openstack.Image, error) {
	return cached(c.images, ref, func() (*openstack.Image, error) { return c.cloud.Image(c.ctx(ctx), ref) })
}

// ExternalNetwork implements openstack.Cloud.
func (c *Cache) ExternalNetwork(ctx context.Context, ref string) (*openstack.Network, error) {
	return cached(c.nets, "ext:"+ref, func() (*openstack.Network, error) { return c.cloud.ExternalNetwork(c.ctx(ctx), ref) })
}

// Network implements openstack.Cloud.
func (c *Cache) Network(ctx context.Context, ref string) (*openstack.Network, error) {
	return cached(c.nets, "fixed:"+ref, func() (*openstack.Network, error) { return c.cloud.Network(c.ctx(ctx), ref) })
}

// Subnet implements openstack.Cloud.
func (c *Cache) Subnet(ctx context.Context, ref, networkID string) (*openstack.Subnet, error) {
	return cached(c.subnets, networkID+"/"+ref, func() (*openstack.Subnet, error) { return c.cloud.Subnet(c.ctx(ctx), ref, networkID) })
}

// VolumeType implements openstack.Cloud.
func (c *Cache) VolumeType(ctx context.Context, ref string) error {
	_, err := cached(c.vtypes, ref, func() (bool, error) { return true, c.cloud.VolumeType(c.ctx(ctx), ref) })
	return err
}

// Keypair implements openstack.Cloud. It is asked each time: a request
// checks its keypair once, before its commit.
func (c *Cache) Keypair(ctx context.Context, name string) error {
	return c.cloud.Keypair(c.ctx(ctx), name)
}

// ServerGroup ensures the Nova server group name with policy (adopting
// the project's group of that name, else creating it), once per request:
// a commit run again asks nothing new. "" when the cloud makes none.
func (c *Cache) ServerGroup(ctx context.Context, name, policy string) (string, error) {
	sg, ok := c.cloud.(openstack.ServerGroups)
	if !ok {
		return "", nil
	}
	return cached(c.groups, name, func() (string, error) {
		id, created, err := sg.EnsureServerGroup(c.ctx(ctx), name, policy)
		if created {
			c.created[name] = id
		}
		return id, err
	})
}

// CreatedServerGroups are the server groups this request created, ID by
// name: the ones to delete again if its change is not committed.
func (c *Cache) CreatedServerGroups() map[string]string { return c.created }

// DeleteServerGroup deletes a group as the caller, whatever ctx's
// cancellation (a request whose client went away still cleans up).
func (c *Cache) DeleteServerGroup(ctx context.Context, id string) error {
	sg, ok := c.cloud.(openstack.ServerGroups)
	if !ok {
		return nil
	}
	return sg.DeleteServerGroup(c.ctx(context.WithoutCancel(ctx)), id)
}

// Error turns a failed lookup into Magnum's error for it.
func Error(err error) error {
	var nf *openstack.NotFoundError
	var amb *openstack.AmbiguousError
	var fb *openstack.ForbiddenError
	var ua *openstack.UnauthorizedError
	switch {
	case errors.As(err, &nf):
		switch nf.Kind {
		case openstack.KindImage:
			return apierr.BadRequest("Image %s could not be found.", nf.Ref)
		case openstack.KindOSDistro:
			return apierr.BadRequest("Image %s doesn't contain os_distro field.", nf.Ref)
		case openstack.KindFlavor:
			return apierr.BadRequest("Unable to find flavor %s.", nf.Ref)
		case openstack.KindExternalNetwork:
			return apierr.BadRequest("External network %s could not be found.", nf.Ref)
		case openstack.KindNetwork:
			return apierr.BadRequest("Fixed network %s could not be found.", nf.Ref)
		case openstack.KindSubnet:
			return apierr.BadRequest("Fixed subnet %s could not be found.", nf.Ref)
		case openstack.KindKeypair:
			return apierr.NotFound("Unable to find keypair %s.", nf.Ref)
		case openstack.KindVolumeType:
			return apierr.BadRequest("Valid volume type %s could not be found in cinder.", nf.Ref)
		}
		return apierr.BadRequest("%s %s could not be found.", nf.Kind, nf.Ref)
	case errors.As(err, &amb):
		switch amb.Kind {
		case openstack.KindExternalNetwork:
			return apierr.Conflict("Multiple external networks exist with same name '%s'. Please use the external network ID instead.", amb.Ref)
		case openstack.KindNetwork:
			return apierr.Conflict("Multiple networks exist with same name '%s'. Please use the network ID instead.", amb.Ref)
		case openstack.KindSubnet:
			return apierr.Conflict("Multiple subnets exist with same name '%s'. Please use the subnet ID instead.", amb.Ref)
		case openstack.KindServerGroup:
			return apierr.Conflict("Multiple Nova server groups are named %s in the project: keel cannot tell which one is the cluster's. Delete the extra ones and retry.", amb.Ref)
		}
		return apierr.Conflict("Multiple %ss exist with same name %s. Please use the resource id instead.", amb.Kind, amb.Ref)
	case errors.As(err, &fb):
		if fb.Kind == openstack.KindImage {
			return apierr.Forbidden("Not authorized for image %s.", fb.Ref)
		}
		return apierr.Forbidden("Not authorized for %s %s.", fb.Kind, fb.Ref)
	case errors.As(err, &ua):
		// Magnum's AuthorizationFailure (403): the service refused the
		// caller's token, which Keystone had validated. The token's cached
		// validation is dropped, so the client's next request is a 401.
		return apierr.Forbidden("%s connection failed. The %s %s could not be looked up: %s refused the request's token (HTTP 401); it has expired or been revoked. Authenticate again.",
			ua.Service, ua.Kind, ua.Ref, ua.Service)
	}
	return &apierr.Error{Status: http.StatusInternalServerError, Msg: fmt.Sprintf("OpenStack lookup failed: %v", err)}
}
