package realopenstack

import (
	"context"
	"strings"
	"testing"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/imagedata"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
)

// PrivateImage uploads, as the project's user, a private image (4 KiB of
// zeros: nothing boots it) with properties; it returns its ID.
func (p *Project) PrivateImage(t testing.TB, name string, properties map[string]string) string {
	t.Helper()
	ic, err := gcos.NewImageV2(p.Provider(t), p.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()
	vis := images.ImageVisibilityPrivate
	im, err := images.Create(ctx, ic, images.CreateOpts{Name: name, Visibility: &vis, DiskFormat: "raw",
		ContainerFormat: "bare", Properties: properties}).Extract()
	if err != nil {
		t.Fatalf("creating image %s: %v", name, err)
	}
	if err := imagedata.Upload(ctx, ic, im.ID, strings.NewReader(strings.Repeat("\x00", 4096))).ExtractErr(); err != nil {
		t.Fatalf("uploading image %s: %v", name, err)
	}
	return im.ID
}

// Keypair makes, as the project's user, a keypair whose key Nova
// generates.
func (p *Project) Keypair(t testing.TB, name string) {
	t.Helper()
	cc, err := gcos.NewComputeV2(p.Provider(t), p.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	cc.Microversion = "2.1" // 2.92 stopped generating keys
	if _, err := keypairs.Create(context.Background(), cc, keypairs.CreateOpts{Name: name}).Extract(); err != nil {
		t.Fatalf("creating keypair %s: %v", name, err)
	}
}

// Network makes, as the project's user, a network; it returns its ID.
func (p *Project) Network(t testing.TB, name string) string {
	t.Helper()
	nc, err := gcos.NewNetworkV2(p.Provider(t), p.cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	n, err := networks.Create(context.Background(), nc, networks.CreateOpts{Name: name}).Extract()
	if err != nil {
		t.Fatalf("creating network %s: %v", name, err)
	}
	return n.ID
}
