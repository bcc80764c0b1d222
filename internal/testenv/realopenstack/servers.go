package realopenstack

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servers"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
)

// maxComputeHosts bounds ServerWithNoValidHost: the stack has two fake
// compute hosts (hack/openstack.sh), a few more would still be found.
const maxComputeHosts = 4

// ServerWithNoValidHost makes, as the project's user, servers of the
// stack's image and smallest flavor in one hard anti-affinity server group
// until Nova has no host left for one (the stack's compute hosts are fake,
// so this is how a test gets a server that Nova scheduled and put in
// ERROR); it returns that server's ID.
func (p *Project) ServerWithNoValidHost(t testing.TB) string {
	t.Helper()
	ctx := context.Background()
	cc, err := gcos.NewComputeV2(p.Provider(t), p.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	network := p.Network(t, "no-valid-host")
	nc := p.userServices(t).network
	if _, err := subnets.Create(ctx, nc, subnets.CreateOpts{NetworkID: network, CIDR: "10.7.0.0/24", IPVersion: gophercloud.IPv4}).Extract(); err != nil {
		t.Fatal(err)
	}
	gc := *cc
	gc.Microversion = "2.64"
	g, err := servergroups.Create(ctx, &gc, servergroups.CreateOpts{Name: "no-valid-host", Policy: "anti-affinity"}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	image, flavor := p.imageID(t), p.flavorID(t, cc)
	for i := 0; i <= maxComputeHosts; i++ {
		s, err := servers.Create(ctx, cc, servers.CreateOpts{Name: fmt.Sprintf("no-valid-host-%d", i), ImageRef: image, FlavorRef: flavor,
			Networks: []servers.Network{{UUID: network}}}, servers.SchedulerHintOpts{Group: g.ID}).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if waitServer(t, cc, s.ID) == "ERROR" {
			return s.ID
		}
	}
	t.Fatalf("%d servers of one anti-affinity group all ACTIVE: more compute hosts than expected", maxComputeHosts+1)
	return ""
}

// waitServer waits for the server to be ACTIVE or ERROR, and says which.
func waitServer(t testing.TB, cc *gophercloud.ServiceClient, id string) string {
	t.Helper()
	deadline := time.Now().Add(2 * time.Minute)
	for {
		s, err := servers.Get(context.Background(), cc, id).Extract()
		switch {
		case err != nil:
			t.Fatal(err)
		case s.Status == "ACTIVE", s.Status == "ERROR":
			return s.Status
		case time.Now().After(deadline):
			t.Fatalf("server %s is %s after 2 minutes", id, s.Status)
		}
		time.Sleep(time.Second)
	}
}

// imageID is the ID of the stack's image.
func (p *Project) imageID(t testing.TB) string {
	t.Helper()
	ic, err := gcos.NewImageV2(p.Provider(t), p.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	pages, err := images.List(ic, images.ListOpts{Name: p.cloud.Image}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all, err := images.ExtractImages(pages)
	if err != nil || len(all) != 1 {
		t.Fatalf("image %s: %d found (%v)", p.cloud.Image, len(all), err)
	}
	return all[0].ID
}

// flavorID is the ID of the stack's first (smallest) flavor.
func (p *Project) flavorID(t testing.TB, cc *gophercloud.ServiceClient) string {
	t.Helper()
	pages, err := flavors.ListDetail(cc, flavors.ListOpts{}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	all, err := flavors.ExtractFlavors(pages)
	if err != nil {
		t.Fatal(err)
	}
	for _, f := range all {
		if f.Name == p.cloud.Flavors[0] {
			return f.ID
		}
	}
	t.Fatalf("flavor %s not found", p.cloud.Flavors[0])
	return ""
}
