package realopenstack

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/security/groups"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/trunks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/ports"
	"github.com/gophercloud/gophercloud/v2/pagination"
)

// Resource is one thing a project holds in a service.
type Resource struct {
	Kind, ID, Name string
	// Owner is a keypair's user (Nova's keypairs are a user's, their name
	// their ID).
	Owner string
}

func (r Resource) String() string { return fmt.Sprintf("%s %s (%s)", r.Kind, r.Name, r.ID) }

// Admin service clients, for listing and deleting any project's resources.
type adminClients struct {
	compute, network, lb, volume, image *gophercloud.ServiceClient
}

func (c *Cloud) adminClients(t testing.TB) *adminClients {
	t.Helper()
	pc, eo := c.Admin(t), c.Endpoint()
	a := &adminClients{}
	var err error
	for _, s := range []struct {
		dst *(*gophercloud.ServiceClient)
		new func(*gophercloud.ProviderClient, gophercloud.EndpointOpts) (*gophercloud.ServiceClient, error)
	}{{&a.compute, gcos.NewComputeV2}, {&a.network, gcos.NewNetworkV2}, {&a.lb, gcos.NewLoadBalancerV2},
		{&a.volume, gcos.NewBlockStorageV3}, {&a.image, gcos.NewImageV2}} {
		if *s.dst, err = s.new(pc, eo); err != nil {
			t.Fatal(err)
		}
	}
	// Server groups' project_id and user_id are in the answers from 2.13,
	// listing another user's keypairs (user_id) from 2.10.
	a.compute.Microversion = "2.13"
	return a
}

// kind lists and deletes one kind of resource of a project.
type kind struct {
	name   string
	list   func(ctx context.Context, a *adminClients, p *Project) ([]Resource, error)
	delete func(ctx context.Context, a *adminClients, r Resource) error
	// gone is waited for after the deletes, when they are asynchronous.
	wait bool
}

// kinds, in the order they are deleted: what holds a port before the port,
// ports before their networks.
var kinds = []kind{
	{name: "load balancer", list: listLoadBalancers, delete: deleteLoadBalancer, wait: true},
	{name: "floating IP", list: listFloatingIPs, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return floatingips.Delete(ctx, a.network, r.ID).ExtractErr()
	}},
	{name: "server", list: listServers, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return servers.ForceDelete(ctx, a.compute, r.ID).ExtractErr()
	}, wait: true},
	{name: "volume", list: listVolumes, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return volumes.Delete(ctx, a.volume, r.ID, volumes.DeleteOpts{Cascade: true}).ExtractErr()
	}, wait: true},
	{name: "trunk", list: listTrunks, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return trunks.Delete(ctx, a.network, r.ID).ExtractErr()
	}},
	{name: "router", list: listRouters, delete: deleteRouter},
	{name: "port", list: listPorts, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return ports.Delete(ctx, a.network, r.ID).ExtractErr()
	}},
	{name: "network", list: listNetworks, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return networks.Delete(ctx, a.network, r.ID).ExtractErr()
	}},
	{name: "security group", list: listSecurityGroups, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return groups.Delete(ctx, a.network, r.ID).ExtractErr()
	}},
	{name: "server group", list: listServerGroups, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return servergroups.Delete(ctx, a.compute, r.ID).ExtractErr()
	}},
	{name: "image", list: listImages, delete: func(ctx context.Context, a *adminClients, r Resource) error {
		return images.Delete(ctx, a.image, r.ID).ExtractErr()
	}},
	{name: "keypair", list: listKeypairs, delete: deleteKeypair},
}

// Inventory lists what the project holds in Nova, Neutron, Octavia,
// Cinder and Glance (its user's keypairs included), as the admin sees it.
// The default security group Neutron makes for every project is left out:
// it is the project's, not what a test made.
func (p *Project) Inventory(t testing.TB) []Resource {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	a := p.cloud.adminClients(t)
	var all []Resource
	for _, k := range kinds {
		rs, err := k.list(ctx, a, p)
		if err != nil {
			t.Fatalf("listing the %ss of project %s: %v", k.name, p.Name, err)
		}
		for _, r := range rs {
			if !(r.Kind == "security group" && r.Name == "default") {
				all = append(all, r)
			}
		}
	}
	return all
}

// Purge deletes everything the project holds, kind by kind (Inventory's
// order), waiting for the asynchronous deletes. A failure is the test's:
// a test cloud must not fill up with what tests leave.
func (p *Project) Purge(t testing.TB) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	a := p.cloud.adminClients(t)
	for _, k := range kinds {
		if err := purgeKind(ctx, a, p, k); err != nil {
			t.Errorf("purging project %s: %v", p.Name, err)
		}
	}
}

func purgeKind(ctx context.Context, a *adminClients, p *Project, k kind) error {
	rs, err := k.list(ctx, a, p)
	if err != nil {
		return fmt.Errorf("listing %ss: %w", k.name, err)
	}
	for _, r := range rs {
		if err := k.delete(ctx, a, r); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			return fmt.Errorf("deleting %v: %w", r, err)
		}
	}
	for k.wait && len(rs) > 0 {
		if rs, err = k.list(ctx, a, p); err != nil {
			return fmt.Errorf("listing %ss: %w", k.name, err)
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("%ss %v not gone: %w", k.name, rs, ctx.Err())
		case <-time.After(time.Second):
		}
	}
	return nil
}

// listAll reads every page of pager and keeps, as Resources of kind, the
// items pick answers for.
func listAll[T any](ctx context.Context, pager pagination.Pager, extract func(pagination.Page) ([]T, error),
	kind string, pick func(T) (id, name string, ok bool)) ([]Resource, error) {
	pages, err := pager.AllPages(ctx)
	if err != nil {
		return nil, err
	}
	items, err := extract(pages)
	if err != nil {
		return nil, err
	}
	var out []Resource
	for _, it := range items {
		if id, name, ok := pick(it); ok {
			out = append(out, Resource{Kind: kind, ID: id, Name: name})
		}
	}
	return out, nil
}

func listLoadBalancers(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, loadbalancers.List(a.lb, loadbalancers.ListOpts{ProjectID: p.ID}), loadbalancers.ExtractLoadBalancers,
		"load balancer", func(lb loadbalancers.LoadBalancer) (string, string, bool) {
			return lb.ID, lb.Name, lb.ProvisioningStatus != "DELETED"
		})
}

// deleteLoadBalancer deletes with cascade; one PENDING_ (Octavia's 409) is
// asked again on the next listing.
func deleteLoadBalancer(ctx context.Context, a *adminClients, r Resource) error {
	err := loadbalancers.Delete(ctx, a.lb, r.ID, loadbalancers.DeleteOpts{Cascade: true}).ExtractErr()
	if gophercloud.ResponseCodeIs(err, 409) {
		return nil
	}
	return err
}

func listFloatingIPs(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, floatingips.List(a.network, floatingips.ListOpts{ProjectID: p.ID}), floatingips.ExtractFloatingIPs,
		"floating IP", func(f floatingips.FloatingIP) (string, string, bool) { return f.ID, f.FloatingIP, true })
}

func listServers(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, servers.List(a.compute, servers.ListOpts{AllTenants: true, TenantID: p.ID}), servers.ExtractServers,
		"server", func(s servers.Server) (string, string, bool) { return s.ID, s.Name, true })
}

func listVolumes(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, volumes.List(a.volume, volumes.ListOpts{AllTenants: true, TenantID: p.ID}), volumes.ExtractVolumes,
		"volume", func(v volumes.Volume) (string, string, bool) { return v.ID, v.Name, true })
}

func listTrunks(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, trunks.List(a.network, trunks.ListOpts{ProjectID: p.ID}), trunks.ExtractTrunks,
		"trunk", func(tr trunks.Trunk) (string, string, bool) { return tr.ID, tr.Name, true })
}

func listRouters(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, routers.List(a.network, routers.ListOpts{ProjectID: p.ID}), routers.ExtractRouters,
		"router", func(r routers.Router) (string, string, bool) { return r.ID, r.Name, true })
}

// deleteRouter detaches the router's subnets, then deletes it (its
// gateway goes with it).
func deleteRouter(ctx context.Context, a *adminClients, r Resource) error {
	pages, err := ports.List(a.network, ports.ListOpts{DeviceID: r.ID, DeviceOwner: "network:router_interface"}).AllPages(ctx)
	if err != nil {
		return err
	}
	ifs, err := ports.ExtractPorts(pages)
	if err != nil {
		return err
	}
	for _, pt := range ifs {
		_, err := routers.RemoveInterface(ctx, a.network, r.ID, routers.RemoveInterfaceOpts{PortID: pt.ID}).Extract()
		if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			return err
		}
	}
	return routers.Delete(ctx, a.network, r.ID).ExtractErr()
}

// neutronOwned are the device owners of ports Neutron deletes with their
// network (DHCP) or router.
var neutronOwned = []string{"network:dhcp", "network:router_gateway", "network:router_interface"}

func listPorts(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, ports.List(a.network, ports.ListOpts{ProjectID: p.ID}), ports.ExtractPorts,
		"port", func(pt ports.Port) (string, string, bool) {
			return pt.ID, pt.Name, !slices.Contains(neutronOwned, pt.DeviceOwner)
		})
}

func listNetworks(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, networks.List(a.network, networks.ListOpts{ProjectID: p.ID}), networks.ExtractNetworks,
		"network", func(n networks.Network) (string, string, bool) { return n.ID, n.Name, true })
}

func listSecurityGroups(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, groups.List(a.network, groups.ListOpts{ProjectID: p.ID}), groups.ExtractGroups,
		"security group", func(g groups.SecGroup) (string, string, bool) { return g.ID, g.Name, true })
}

// listServerGroups: Nova filters server groups by no project, so all
// projects' are listed and the project's kept.
func listServerGroups(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, servergroups.List(a.compute, servergroups.ListOpts{AllProjects: true}), servergroups.ExtractServerGroups,
		"server group", func(g servergroups.ServerGroup) (string, string, bool) { return g.ID, g.Name, g.ProjectID == p.ID })
}

func listImages(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	return listAll(ctx, images.List(a.image, images.ListOpts{Owner: p.ID}), images.ExtractImages,
		"image", func(i images.Image) (string, string, bool) { return i.ID, i.Name, true })
}

// listKeypairs lists the project's user's keypairs (Nova's keypairs are
// a user's, not a project's); the keypair's ID is its name.
func listKeypairs(ctx context.Context, a *adminClients, p *Project) ([]Resource, error) {
	if p.UserID == "" {
		return nil, nil
	}
	cc := *a.compute
	cc.Microversion = "2.10"
	rs, err := listAll(ctx, keypairs.List(&cc, keypairs.ListOpts{UserID: p.UserID}), keypairs.ExtractKeyPairs,
		"keypair", func(k keypairs.KeyPair) (string, string, bool) { return k.Name, k.Name, true })
	for i := range rs {
		rs[i].Owner = p.UserID
	}
	return rs, err
}

// deleteKeypair needs the owner: the name is only unique per user.
func deleteKeypair(ctx context.Context, a *adminClients, r Resource) error {
	cc := *a.compute
	cc.Microversion = "2.10"
	return keypairs.Delete(ctx, &cc, r.ID, keypairs.DeleteOpts{UserID: r.Owner}).ExtractErr()
}
