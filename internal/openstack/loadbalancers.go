package openstack

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"regexp"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/pagination"
)

// LoadBalancers removes the Octavia load balancers a cluster's cloud
// controller manager (OCCM) made for its Services of type LoadBalancer,
// as Magnum's Cluster API driver does before deleting the cluster: CAPO
// cannot delete the cluster's network while a load balancer's VIP port
// is on it.
type LoadBalancers interface {
	// DeleteClusterLoadBalancers finds, among the load balancers of
	// project, those whose description OCCM wrote for the cluster
	// (ClusterLoadBalancer), deletes the floating IPs on their VIP ports
	// and deletes them with their listeners and pools (cascade), as
	// keel's service user. It returns those that still exist (being
	// deleted): the caller asks again until none is left. A refusal is a
	// *ForbiddenError.
	DeleteClusterLoadBalancers(ctx context.Context, projectID, clusterUUID string) ([]LoadBalancer, error)
}

// LoadBalancer is an Octavia load balancer of a cluster.
type LoadBalancer struct {
	ID, Name, ProvisioningStatus string
}

// KindLoadBalancer names Octavia load balancers in errors.
const KindLoadBalancer Kind = "load balancer"

// A project's load balancers are listed lbPageLimit at a time, at most
// lbMaxPages pages: a teardown's cost is bounded.
const (
	lbPageLimit = 500
	lbMaxPages  = 20
)

var (
	_ LoadBalancers = (*Client)(nil)
	_ LoadBalancers = Given{}
)

// ClusterLoadBalancer reports whether a load balancer's description is
// one OCCM writes for the cluster whose --cluster-name is clusterUUID
// ("Kubernetes external service <ns>/<svc> from cluster <uuid>"): the
// reference's pattern "Kubernetes .+ from cluster <uuid>", anchored at
// both ends so that a longer name that starts with the UUID is not the
// cluster's.
func ClusterLoadBalancer(description, clusterUUID string) bool {
	return clusterLoadBalancers(clusterUUID).MatchString(description)
}

func clusterLoadBalancers(clusterUUID string) *regexp.Regexp {
	return regexp.MustCompile(`^Kubernetes .+ from cluster ` + regexp.QuoteMeta(clusterUUID) + `$`)
}

// lbServices are keel's service user's Octavia and Neutron clients.
type lbServices struct {
	lb, network *gophercloud.ServiceClient
}

// errNoOctavia: the catalog has no load-balancer endpoint.
var errNoOctavia = errors.New("no load-balancer endpoint")

// loadBalancerServices builds the service user's Octavia client (and a
// Neutron one) once; they are not among the services of lookups, which
// clouds without Octavia must still answer.
func (c *Client) loadBalancerServices(ctx context.Context) (*lbServices, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lb != nil {
		return c.lb, nil
	}
	provider, err := c.serviceProviderLocked(ctx)
	if err != nil {
		return nil, err
	}
	eo := gophercloud.EndpointOpts{Region: c.opts.Region, Availability: c.opts.Availability}
	s := &lbServices{}
	if s.lb, err = gcos.NewLoadBalancerV2(provider, eo); err != nil {
		var nf *gophercloud.ErrEndpointNotFound
		if errors.As(err, &nf) {
			return nil, errNoOctavia
		}
		return nil, fmt.Errorf("openstack: service catalog: %w", err)
	}
	if s.network, err = gcos.NewNetworkV2(provider, eo); err != nil {
		return nil, fmt.Errorf("openstack: service catalog: %w", err)
	}
	c.lb = s
	return s, nil
}

// DeleteClusterLoadBalancers lists the project's load balancers, deletes
// the floating IPs of the cluster's (before the load balancer, while its
// VIP port still holds them) and the load balancers with cascade. One
// already PENDING_DELETE is waited for; one in another PENDING_ state
// (Octavia answers 409) is asked again next time. A cloud without Octavia
// has none.
func (c *Client) DeleteClusterLoadBalancers(ctx context.Context, projectID, clusterUUID string) ([]LoadBalancer, error) {
	s, err := c.loadBalancerServices(ctx)
	if errors.Is(err, errNoOctavia) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	re := clusterLoadBalancers(clusterUUID)
	var mine []loadbalancers.LoadBalancer
	pages := 0
	err = loadbalancers.List(s.lb, loadbalancers.ListOpts{ProjectID: projectID, Limit: lbPageLimit}).EachPage(ctx,
		func(_ context.Context, p pagination.Page) (bool, error) {
			pages++
			if pages > lbMaxPages {
				return false, fmt.Errorf("project %s has more than %d load balancers", projectID, lbPageLimit*lbMaxPages)
			}
			all, err := loadbalancers.ExtractLoadBalancers(p)
			if err != nil {
				return false, err
			}
			for _, lb := range all {
				if re.MatchString(lb.Description) {
					mine = append(mine, lb)
				}
			}
			return true, nil
		})
	if err != nil {
		return nil, lbErr(clusterUUID, "listing load balancers", err)
	}
	var left []LoadBalancer
	for _, lb := range mine {
		if lb.ProvisioningStatus == "DELETED" {
			continue
		}
		if lb.ProvisioningStatus != "PENDING_DELETE" {
			if err := deleteFloatingIPs(ctx, s.network, lb.VipPortID); err != nil {
				return nil, lbErr(lb.ID, "deleting the floating IPs of load balancer "+lb.ID, err)
			}
			err := loadbalancers.Delete(ctx, s.lb, lb.ID, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()
			switch {
			case isNotFound(err):
				continue
			case err == nil, gophercloud.ResponseCodeIs(err, http.StatusConflict):
			default:
				return nil, lbErr(lb.ID, "deleting load balancer "+lb.ID, err)
			}
		}
		left = append(left, LoadBalancer{ID: lb.ID, Name: lb.Name, ProvisioningStatus: lb.ProvisioningStatus})
	}
	return left, nil
}

// deleteFloatingIPs deletes the floating IPs on a port (a load balancer's
// VIP: OCCM's, which Octavia's cascade leaves).
func deleteFloatingIPs(ctx context.Context, nc *gophercloud.ServiceClient, portID string) error {
	if portID == "" {
		return nil
	}
	pages, err := floatingips.List(nc, floatingips.ListOpts{PortID: portID}).AllPages(ctx)
	if err != nil {
		return err
	}
	fips, err := floatingips.ExtractFloatingIPs(pages)
	if err != nil {
		return err
	}
	for _, f := range fips {
		if err := floatingips.Delete(ctx, nc, f.ID).ExtractErr(); err != nil && !isNotFound(err) {
			return err
		}
	}
	return nil
}

func lbErr(ref, what string, err error) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return &ForbiddenError{Kind: KindLoadBalancer, Ref: ref}
	}
	return fmt.Errorf("openstack: %s: %w", what, err)
}

// DeleteClusterLoadBalancers has none: without OpenStack no cloud
// controller made any.
func (Given) DeleteClusterLoadBalancers(context.Context, string, string) ([]LoadBalancer, error) {
	return nil, nil
}
