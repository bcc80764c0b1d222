package openstack

import (
	"context"
	"strings"
	"testing"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"

	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Nova, Glance and Neutron, lookups as the caller see
// what the caller sees: their project's private image (with os_distro),
// their keypair, the public flavors with their sizes and the external
// network. Another project's private image, network and keypair are not
// found, and neither is a flavor nobody made.
func TestRealOpenStackLookupsAsTheCaller(t *testing.T) {
	cloud, c := realCloud(t)
	p, other := cloud.NewProject(t), cloud.NewProject(t)
	ctx := asCaller(t, p)
	mine := privateImage(t, cloud, p, "private-image")
	privateImage(t, cloud, other, "their-image")
	keypair(t, cloud, p, "my-key")
	keypair(t, cloud, other, "their-key")
	theirNet := network(t, cloud, other, "their-net")

	im, err := c.Image(ctx, "private-image")
	if err != nil || im.UUID != mine || im.OSDistro != "fedora-coreos" {
		t.Fatalf("the caller's private image: %+v %v, want %s with os_distro fedora-coreos", im, err, mine)
	}
	if err := c.Keypair(ctx, "my-key"); err != nil {
		t.Fatalf("the caller's keypair: %v", err)
	}
	fl, err := c.Flavor(ctx, "m1.small")
	if err != nil || fl.VCPUs != 1 || fl.RAMMiB != 2048 || fl.DiskGiB != 20 {
		t.Fatalf("flavor m1.small: %+v %v", fl, err)
	}
	if n, err := c.ExternalNetwork(ctx, cloud.ExternalNetwork); err != nil || n.ID == "" {
		t.Fatalf("external network %s: %+v %v", cloud.ExternalNetwork, n, err)
	}
	wantNotFound(t, lookupErr(c.Image(ctx, "their-image")), KindImage)
	wantNotFound(t, c.Keypair(ctx, "their-key"), KindKeypair)
	wantNotFound(t, lookupErr(c.Network(ctx, theirNet)), KindNetwork)
	_, err = c.Flavor(ctx, "m9.nonexistent")
	wantNotFound(t, err, KindFlavor)
	if !strings.Contains(err.Error(), `"m9.nonexistent"`) {
		t.Errorf("the unknown flavor's error %q does not name it", err)
	}
}

func lookupErr[T any](_ T, err error) error { return err }

// privateImage uploads, as p's user, a private image with os_distro.
func privateImage(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project, name string) string {
	t.Helper()
	ic, err := gcos.NewImageV2(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vis := images.ImageVisibilityPrivate
	im, err := images.Create(ctx, ic, images.CreateOpts{Name: name, Visibility: &vis, DiskFormat: "raw",
		ContainerFormat: "bare", Properties: map[string]string{"os_distro": "fedora-coreos"}}).Extract()
	if err != nil {
		t.Fatalf("creating image %s: %v", name, err)
	}
	if err := imagedata.Upload(ctx, ic, im.ID, strings.NewReader(strings.Repeat("\x00", 4096))).ExtractErr(); err != nil {
		t.Fatalf("uploading image %s: %v", name, err)
	}
	return im.ID
}

// keypair makes, as p's user, a keypair Nova generates.
func keypair(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project, name string) {
	t.Helper()
	cc, err := gcos.NewComputeV2(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	cc.Microversion = "2.1" // the last that generates a key
	if _, err := keypairs.Create(context.Background(), cc, keypairs.CreateOpts{Name: name}).Extract(); err != nil {
		t.Fatalf("creating keypair %s: %v", name, err)
	}
}

// network makes, as p's user, a network of p's; it returns its ID.
func network(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project, name string) string {
	t.Helper()
	nc, err := gcos.NewNetworkV2(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	n, err := networks.Create(context.Background(), nc, networks.CreateOpts{Name: name}).Extract()
	if err != nil {
		t.Fatalf("creating network %s: %v", name, err)
	}
	return n.ID
}
