package openstack

import (
	"context"
	"fmt"
	"slices"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/listeners"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/loadbalancers"
	"github.com/gophercloud/gophercloud/v2/openstack/loadbalancer/v2/pools"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/floatingips"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/layer3/routers"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"

	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Octavia and Neutron: the load balancers OCCM made for
// the cluster (named by their description) are deleted by keel's service
// user with their listeners and pools (cascade) and the floating IPs on
// their VIPs; DeleteClusterLoadBalancers reports them until Octavia has
// deleted them. Another cluster's load balancer, in the same project, and
// its floating IP stay.
func TestRealOpenStackClusterLoadBalancersDeleted(t *testing.T) {
	cloud, c := realCloud(t)
	p := cloud.NewProject(t)
	u := userServicesOf(t, cloud, p)
	subnet := u.tenantSubnet(t, cloud)
	const cluster, other = "5d12f6fd-7c1e-4d4b-9a57-2f1c3e4d5a6b", "0b9e8d7c-6f5a-4b3c-8d2e-1f0a9b8c7d6e"
	web := u.occmLoadBalancer(t, subnet, "default/web", cluster, true)
	dns := u.occmLoadBalancer(t, subnet, "kube-system/dns", cluster, false)
	theirs := u.occmLoadBalancer(t, subnet, "default/web", other, true)

	deadline := time.Now().Add(3 * time.Minute)
	for rounds := 1; ; rounds++ {
		left, err := c.DeleteClusterLoadBalancers(context.Background(), p.ID, cluster)
		if err != nil {
			t.Fatalf("round %d: %v", rounds, err)
		}
		if len(left) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("still left after %d rounds: %+v", rounds, left)
		}
		time.Sleep(2 * time.Second)
	}
	var names []string
	for _, r := range p.Inventory(t) {
		if r.Kind == "load balancer" || r.Kind == "floating IP" {
			names = append(names, r.Kind+" "+r.ID)
		}
	}
	want := []string{"load balancer " + theirs.id, "floating IP " + theirs.fip}
	slices.Sort(names)
	slices.Sort(want)
	if !slices.Equal(names, want) {
		t.Fatalf("left in the project: %v, want only the other cluster's %v (deleted: %s, %s)", names, want, web.id, dns.id)
	}
}

// userServices are Octavia and Neutron as a project's user.
type userServices struct {
	lb, network *gophercloud.ServiceClient
}

func userServicesOf(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project) *userServices {
	t.Helper()
	pc := p.Provider(t)
	u := &userServices{}
	var err error
	if u.lb, err = gcos.NewLoadBalancerV2(pc, cloud.Endpoint()); err == nil {
		u.network, err = gcos.NewNetworkV2(pc, cloud.Endpoint())
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// tenantSubnet makes what a cluster's network is: a network, a subnet
// and a router to the external network (without which Neutron associates
// no floating IP). The subnet's range exists only in Neutron's database.
func (u *userServices) tenantSubnet(t *testing.T, cloud *realopenstack.Cloud) string {
	t.Helper()
	ctx := context.Background()
	ext := externalNetworkID(t, u.network, cloud.ExternalNetwork)
	n, err := networks.Create(ctx, u.network, networks.CreateOpts{Name: "k8s-net"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	s, err := subnets.Create(ctx, u.network, subnets.CreateOpts{NetworkID: n.ID, Name: "k8s-subnet",
		CIDR: "10.6.0.0/24", IPVersion: gophercloud.IPv4}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	r, err := routers.Create(ctx, u.network, routers.CreateOpts{Name: "k8s-router",
		GatewayInfo: &routers.GatewayInfo{NetworkID: ext}}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := routers.AddInterface(ctx, u.network, r.ID, routers.AddInterfaceOpts{SubnetID: s.ID}).Extract(); err != nil {
		t.Fatal(err)
	}
	return s.ID
}

func externalNetworkID(t *testing.T, nc *gophercloud.ServiceClient, name string) string {
	t.Helper()
	pages, err := networks.List(nc, networks.ListOpts{Name: name}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	ns, err := networks.ExtractNetworks(pages)
	if err != nil || len(ns) != 1 {
		t.Fatalf("external network %s: %d found (%v)", name, len(ns), err)
	}
	return ns[0].ID
}

// madeLB is a load balancer a test made, and its floating IP's ID.
type madeLB struct{ id, fip string }

// occmLoadBalancer makes, as the project's user, what OCCM makes for a
// Service of type LoadBalancer: a load balancer named and described as
// OCCM names them, a TCP listener and a pool, and (when fip) a floating IP
// on its VIP port.
func (u *userServices) occmLoadBalancer(t *testing.T, subnet, svc, cluster string, fip bool) madeLB {
	t.Helper()
	ctx := context.Background()
	lb, err := loadbalancers.Create(ctx, u.lb, loadbalancers.CreateOpts{VipSubnetID: subnet,
		Name:        fmt.Sprintf("kube_service_%s_%s", cluster, svc),
		Description: fmt.Sprintf("Kubernetes external service %s from cluster %s", svc, cluster)}).Extract()
	if err != nil {
		t.Fatalf("creating the load balancer of %s: %v", svc, err)
	}
	u.waitActive(t, lb.ID)
	li, err := listeners.Create(ctx, u.lb, listeners.CreateOpts{LoadbalancerID: lb.ID, Protocol: listeners.ProtocolTCP,
		ProtocolPort: 80}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	u.waitActive(t, lb.ID)
	if _, err := pools.Create(ctx, u.lb, pools.CreateOpts{ListenerID: li.ID, Protocol: pools.ProtocolTCP,
		LBMethod: pools.LBMethodRoundRobin}).Extract(); err != nil {
		t.Fatal(err)
	}
	u.waitActive(t, lb.ID)
	made := madeLB{id: lb.ID}
	if fip {
		ext := externalNetworkID(t, u.network, realopenstack.Attach(t).ExternalNetwork)
		f, err := floatingips.Create(ctx, u.network, floatingips.CreateOpts{FloatingNetworkID: ext, PortID: lb.VipPortID}).Extract()
		if err != nil {
			t.Fatalf("a floating IP on the VIP port %s: %v", lb.VipPortID, err)
		}
		made.fip = f.ID
	}
	return made
}

// waitActive waits for the load balancer's provisioning to end ACTIVE.
func (u *userServices) waitActive(t *testing.T, id string) {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		lb, err := loadbalancers.Get(context.Background(), u.lb, id).Extract()
		switch {
		case err != nil:
			t.Fatal(err)
		case lb.ProvisioningStatus == "ACTIVE":
			return
		case lb.ProvisioningStatus == "ERROR", time.Now().After(deadline):
			t.Fatalf("load balancer %s is %s", id, lb.ProvisioningStatus)
		}
		time.Sleep(time.Second)
	}
}
