package openstack

import (
	"context"
	"fmt"
	"net/http"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
)

// ServerGroups creates and deletes the Nova server groups of clusters, as
// Magnum's Cluster API driver does: one per nodegroup (the control plane's
// named <stack_id>, a worker nodegroup's <stack_id>-<nodegroup>), ensured
// by name so that a retry adopts the group an earlier attempt made.
type ServerGroups interface {
	// EnsureServerGroup returns the ID of the server group called name
	// in the Scope's project (the caller's token's, else keel's service
	// user's), creating it with policy when there is none; created
	// tells which. "" (and no error): this cloud makes none (Given).
	// Several groups of that name are an *AmbiguousError.
	EnsureServerGroup(ctx context.Context, name, policy string) (id string, created bool, err error)
	// DeleteServerGroup deletes a group: with the Scope's Token when it
	// carries one, else as keel's service user (Nova's default policy
	// lets only admins delete another project's group). A group already
	// gone is not an error; a refusal is a *ForbiddenError.
	DeleteServerGroup(ctx context.Context, id string) error
}

// KindServerGroup names Nova server groups in errors.
const KindServerGroup Kind = "server group"

// serverGroupsMicroversion is the first with the soft-(anti-)affinity
// policies (the reference needs it too); "policies" is still a list.
const serverGroupsMicroversion = "2.15"

var (
	_ ServerGroups = (*Client)(nil)
	_ ServerGroups = Given{}
)

// EnsureServerGroup lists the project's server groups (Nova has no name
// filter) and creates the group only when none has the name.
func (c *Client) EnsureServerGroup(ctx context.Context, name, policy string) (string, bool, error) {
	s, err := c.services(ctx, KindServerGroup, name)
	if err != nil {
		return "", false, err
	}
	cc := *s.compute
	cc.Microversion = serverGroupsMicroversion
	pages, err := servergroups.List(&cc, servergroups.ListOpts{}).AllPages(ctx)
	if err != nil {
		return "", false, c.lookupErr(s, KindServerGroup, name, err)
	}
	all, err := servergroups.ExtractServerGroups(pages)
	if err != nil {
		return "", false, c.lookupErr(s, KindServerGroup, name, err)
	}
	var matches []*servergroups.ServerGroup
	for i := range all {
		if all[i].Name == name {
			matches = append(matches, &all[i])
		}
	}
	if len(matches) > 0 {
		g, err := one(KindServerGroup, name, matches)
		if err != nil {
			return "", false, err
		}
		return g.ID, false, nil
	}
	g, err := servergroups.Create(ctx, &cc, servergroups.CreateOpts{Name: name, Policies: []string{policy}}).Extract()
	if err != nil {
		return "", false, c.lookupErr(s, KindServerGroup, name, err)
	}
	return g.ID, true, nil
}

// DeleteServerGroup deletes a group; NotFound is success.
func (c *Client) DeleteServerGroup(ctx context.Context, id string) error {
	s, err := c.services(ctx, KindServerGroup, id)
	if err != nil {
		return err
	}
	err = servergroups.Delete(ctx, s.compute, id).ExtractErr()
	switch {
	case err == nil, isNotFound(err):
		return nil
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		return &ForbiddenError{Kind: KindServerGroup, Ref: id}
	}
	return fmt.Errorf("openstack: deleting server group %s: %w", id, err)
}

// EnsureServerGroup makes none: without OpenStack the machines are placed
// in no group.
func (Given) EnsureServerGroup(context.Context, string, string) (string, bool, error) {
	return "", false, nil
}

// DeleteServerGroup has nothing to delete.
func (Given) DeleteServerGroup(context.Context, string) error { return nil }
