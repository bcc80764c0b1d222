package openstack

import (
	"strings"
	"testing"
)

// Against the real Nova, Glance and Neutron, lookups as the caller see
// what the caller sees: their project's private image (with os_distro),
// their keypair, the public flavors with their sizes and the external
// network. Another project's private image, network and keypair are not
// found, and neither is a flavor nobody made.
func TestRealOpenStackLookupsAsTheCaller(t *testing.T) {
	t.Parallel() // each in a project of its own: the load balancer waits overlap the rest
	cloud, c := realCloud(t)
	p, other := cloud.NewProject(t), cloud.NewProject(t)
	ctx := asCaller(t, p)
	mine := p.PrivateImage(t, "private-image", map[string]string{"os_distro": "fedora-coreos"})
	other.PrivateImage(t, "their-image", map[string]string{"os_distro": "fedora-coreos"})
	p.Keypair(t, "my-key")
	other.Keypair(t, "their-key")
	theirNet := other.Network(t, "their-net")

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
	wantNotFound(t, second(c.Image(ctx, "their-image")), KindImage)
	wantNotFound(t, c.Keypair(ctx, "their-key"), KindKeypair)
	wantNotFound(t, second(c.Network(ctx, theirNet)), KindNetwork)
	_, err = c.Flavor(ctx, "m9.nonexistent")
	wantNotFound(t, err, KindFlavor)
	if !strings.Contains(err.Error(), `"m9.nonexistent"`) {
		t.Errorf("the unknown flavor's error %q does not name it", err)
	}
}

// second is a lookup's error.
func second[T any](_ T, err error) error { return err }
