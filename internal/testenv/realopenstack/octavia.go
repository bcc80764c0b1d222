package realopenstack

import (
	"context"
	"database/sql"
	"fmt"
	"strings"
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
	_ "github.com/jackc/pgx/v5/stdlib" // Octavia's database, for SetLoadBalancerStatus
)

// userServices are Octavia and Neutron as a project's user.
type userServices struct {
	lb, network *gophercloud.ServiceClient
}

func (p *Project) userServices(t testing.TB) *userServices {
	t.Helper()
	pc := p.Provider(t)
	u := &userServices{}
	var err error
	if u.lb, err = gcos.NewLoadBalancerV2(pc, p.cloud.Endpoint()); err == nil {
		u.network, err = gcos.NewNetworkV2(pc, p.cloud.Endpoint())
	}
	if err != nil {
		t.Fatal(err)
	}
	return u
}

// TenantSubnet makes, as the project's user, what a cluster's network is:
// a network, a subnet and a router to the external network (without which
// Neutron associates no floating IP); it returns the subnet's ID. The
// subnet's range (10.6.0.0/24, CAPO's default) exists only in Neutron's
// database: nothing is routed to it.
func (p *Project) TenantSubnet(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	u := p.userServices(t)
	ext := externalNetworkID(t, u.network, p.cloud.ExternalNetwork)
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

func externalNetworkID(t testing.TB, nc *gophercloud.ServiceClient, name string) string {
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

// LoadBalancer is a load balancer a test made, and the ID of the floating
// IP on its VIP ("" for none).
type LoadBalancer struct{ ID, FloatingIPID string }

// OCCMLoadBalancer makes, as the project's user, what OCCM (the cloud
// controller manager) makes for a Service svc ("namespace/name") of type
// LoadBalancer of the cluster whose --cluster-name is cluster: a load
// balancer on subnet, named and described as OCCM names them, a TCP
// listener and a pool, and (when fip) a floating IP on its VIP port.
func (p *Project) OCCMLoadBalancer(t testing.TB, subnet, svc, cluster string, fip bool) LoadBalancer {
	t.Helper()
	ctx := context.Background()
	u := p.userServices(t)
	lb, err := loadbalancers.Create(ctx, u.lb, loadbalancers.CreateOpts{VipSubnetID: subnet,
		Name:        fmt.Sprintf("kube_service_%s_%s", cluster, strings.ReplaceAll(svc, "/", "_")),
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
	made := LoadBalancer{ID: lb.ID}
	if fip {
		ext := externalNetworkID(t, u.network, p.cloud.ExternalNetwork)
		f, err := floatingips.Create(ctx, u.network, floatingips.CreateOpts{FloatingNetworkID: ext, PortID: lb.VipPortID}).Extract()
		if err != nil {
			t.Fatalf("a floating IP on the VIP port %s: %v", lb.VipPortID, err)
		}
		made.FloatingIPID = f.ID
	}
	return made
}

// waitActive waits for the load balancer's provisioning to end ACTIVE.
func (u *userServices) waitActive(t testing.TB, id string) {
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

// NamedLoadBalancer makes, as the project's user, a load balancer named
// name on subnet (as CAPO makes a cluster's API load balancer), and
// waits for it to be ACTIVE.
func (p *Project) NamedLoadBalancer(t testing.TB, subnet, name string) LoadBalancer {
	t.Helper()
	u := p.userServices(t)
	lb, err := loadbalancers.Create(context.Background(), u.lb, loadbalancers.CreateOpts{VipSubnetID: subnet, Name: name}).Extract()
	if err != nil {
		t.Fatalf("creating load balancer %s: %v", name, err)
	}
	u.waitActive(t, lb.ID)
	return LoadBalancer{ID: lb.ID}
}

// SetLoadBalancerStatus sets a load balancer's provisioning_status in
// Octavia's database. It stands in for an amphora that fails: the no-op
// amphora driver of the test cloud never fails, so nothing else can put a
// load balancer in ERROR here. The cleanup puts it back to ACTIVE so that
// the project's purge can delete it.
func (c *Cloud) SetLoadBalancerStatus(t testing.TB, id, status string) {
	t.Helper()
	url := c.vars[OctaviaDB]
	if url == "" {
		t.Fatalf("%s is not in the env file: it was written by an older hack/openstack.sh; run `bash hack/openstack.sh up` again", OctaviaDB)
	}
	set := func(status string) error {
		db, err := sql.Open("pgx", url)
		if err != nil {
			return err
		}
		defer db.Close()
		res, err := db.ExecContext(context.Background(), `UPDATE load_balancer SET provisioning_status = $1 WHERE id = $2`, status, id)
		if err != nil {
			return err
		}
		if n, _ := res.RowsAffected(); n != 1 {
			return fmt.Errorf("load balancer %s: %d rows in Octavia's database", id, n)
		}
		return nil
	}
	if err := set(status); err != nil {
		t.Fatalf("setting load balancer %s to %s in Octavia's database: %v", id, status, err)
	}
	t.Cleanup(func() {
		if err := set("ACTIVE"); err != nil {
			t.Errorf("putting load balancer %s back to ACTIVE: %v", id, err)
		}
	})
}
