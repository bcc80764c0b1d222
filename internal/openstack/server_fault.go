package openstack

import (
	"context"
	"fmt"

	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
)

// ServerFaults reads Nova's fault of a server in ERROR. CAPO v0.14.7 does
// not: for a server that Nova scheduled and put in ERROR (no valid host)
// its OpenStackServer says only InstanceStateError, and the cause is the
// fault on the Nova server.
type ServerFaults interface {
	// ServerFault is the message of the server's fault, as keel's service
	// user reads it; "" when it has none or is gone.
	ServerFault(ctx context.Context, serverID string) (string, error)
}

// Given has no ServerFault: without OpenStack there is no Nova to ask.
var _ ServerFaults = (*Client)(nil)

// ServerFault reads the server and its fault's message and code (the
// details, a traceback that only admins see, are left out).
func (c *Client) ServerFault(ctx context.Context, serverID string) (string, error) {
	s, err := c.serviceUser(ctx)
	if err != nil {
		return "", err
	}
	srv, err := servers.Get(ctx, s.compute, serverID).Extract()
	if isNotFound(err) {
		return "", nil
	}
	if err != nil {
		return "", fmt.Errorf("openstack: reading server %s: %w", serverID, err)
	}
	if srv.Fault.Message == "" {
		return "", nil
	}
	return fmt.Sprintf("%s (code %d)", srv.Fault.Message, srv.Fault.Code), nil
}
