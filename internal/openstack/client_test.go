package openstack

import (
	"context"
	"errors"
	"testing"
)

const (
	imgUUID    = "6f1c9c5e-0000-4000-8000-000000000001"
	imgDupA    = "6f1c9c5e-0000-4000-8000-00000000000a"
	imgDupB    = "6f1c9c5e-0000-4000-8000-00000000000b"
	imgNoOS    = "6f1c9c5e-0000-4000-8000-00000000000c"
	imgPrivate = "6f1c9c5e-0000-4000-8000-00000000000d"
	extNetID   = "0e5a0d1c-0000-4000-8000-000000000001"
	privNetID  = "0e5a0d1c-0000-4000-8000-000000000002"
	otherNetID = "0e5a0d1c-0000-4000-8000-000000000003"
	dupNetA    = "0e5a0d1c-0000-4000-8000-00000000000a"
	dupNetB    = "0e5a0d1c-0000-4000-8000-00000000000b"
	subnetID   = "5b0b5b0b-0000-4000-8000-000000000001"
	vtypeID    = "7c7c7c7c-0000-4000-8000-000000000001"
)

// populated returns a fake cloud holding one of each resource, plus
// duplicates for the ambiguous cases.
func populated(t *testing.T) (*fakeCloud, *Client) {
	f := newFakeCloud(t)
	f.flavors = []map[string]any{
		{"id": "42", "name": "m1.large", "vcpus": 4, "ram": 8192, "disk": 40},
		{"id": "43", "name": "m1.tiny", "vcpus": 1, "ram": 512, "disk": 0},
	}
	f.images = []map[string]any{
		{"id": imgUUID, "name": "ubuntu-2204-kube", "visibility": "public", "owner": "admin", "min_disk": 20, "os_distro": "ubuntu", "hw_disk_bus": "scsi", "status": "active"},
		{"id": imgDupA, "name": "dup", "visibility": "public", "owner": "admin", "os_distro": "ubuntu", "status": "active"},
		{"id": imgDupB, "name": "dup", "visibility": "public", "owner": "admin", "os_distro": "ubuntu", "status": "active"},
		{"id": imgNoOS, "name": "no-distro", "visibility": "public", "owner": "admin", "status": "active"},
		{"id": imgPrivate, "name": "secret-image", "visibility": "private", "owner": "someone-else", "os_distro": "ubuntu", "status": "active"},
	}
	f.networks = []map[string]any{
		{"id": extNetID, "name": "public", "router:external": true, "shared": false, "project_id": "admin"},
		{"id": privNetID, "name": "private", "router:external": false, "shared": false, "project_id": "p1"},
		{"id": otherNetID, "name": "private", "router:external": false, "shared": false, "project_id": "p2"},
		{"id": dupNetA, "name": "dupnet", "router:external": true, "shared": true, "project_id": "admin"},
		{"id": dupNetB, "name": "dupnet", "router:external": true, "shared": true, "project_id": "admin"},
	}
	f.subnets = []map[string]any{
		{"id": subnetID, "name": "private-subnet", "network_id": privNetID, "project_id": "p1", "cidr": "10.0.0.0/24", "ip_version": 4},
	}
	f.keypairs["u1"] = map[string]bool{"mykey": true}
	f.vtypes = []map[string]any{{"id": vtypeID, "name": "ssd", "is_public": true}}
	return f, New(f.options())
}

func scoped() context.Context {
	return WithScope(context.Background(), Scope{ProjectID: "p1", UserID: "u1"})
}

func wantNotFound(t *testing.T, err error, k Kind) {
	t.Helper()
	var nf *NotFoundError
	if !errors.As(err, &nf) || nf.Kind != k {
		t.Fatalf("want a %s NotFoundError, got %v", k, err)
	}
}

func wantAmbiguous(t *testing.T, err error, k Kind) {
	t.Helper()
	var ae *AmbiguousError
	if !errors.As(err, &ae) || ae.Kind != k || ae.Count != 2 {
		t.Fatalf("want a %s AmbiguousError of 2, got %v", k, err)
	}
}

func TestClientImage(t *testing.T) {
	_, c := populated(t)
	ctx := scoped()
	for _, ref := range []string{imgUUID, "ubuntu-2204-kube"} {
		im, err := c.Image(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if *im != (Image{UUID: imgUUID, Name: "ubuntu-2204-kube", OSDistro: "ubuntu", HwDiskBus: "scsi", MinDisk: 20}) {
			t.Errorf("%s: got %+v", ref, *im)
		}
	}
	_, err := c.Image(ctx, "nope")
	wantNotFound(t, err, KindImage)
	_, err = c.Image(ctx, "6f1c9c5e-0000-4000-8000-0000000000ff")
	wantNotFound(t, err, KindImage)
	_, err = c.Image(ctx, "dup")
	wantAmbiguous(t, err, KindImage)
	_, err = c.Image(ctx, imgNoOS)
	wantNotFound(t, err, KindOSDistro)
	// Another project's private image is not the caller's to use.
	_, err = c.Image(ctx, imgPrivate)
	wantNotFound(t, err, KindImage)
	_, err = c.Image(ctx, "secret-image")
	wantNotFound(t, err, KindImage)
}

func TestClientFlavor(t *testing.T) {
	_, c := populated(t)
	ctx := scoped()
	for _, ref := range []string{"42", "m1.large"} {
		fl, err := c.Flavor(ctx, ref)
		if err != nil {
			t.Fatalf("%s: %v", ref, err)
		}
		if *fl != (Flavor{ID: "42", Name: "m1.large", VCPUs: 4, RAMMiB: 8192, DiskGiB: 40}) {
			t.Errorf("%s: got %+v", ref, *fl)
		}
	}
	_, err := c.Flavor(ctx, "m1.huge")
	wantNotFound(t, err, KindFlavor)
}

func TestClientNetworks(t *testing.T) {
	f, c := populated(t)
	ctx := scoped()
	for _, ref := range []string{extNetID, "public"} {
		n, err := c.ExternalNetwork(ctx, ref)
		if err != nil || n.ID != extNetID || n.Name != "public" {
			t.Fatalf("external %s: %+v %v", ref, n, err)
		}
	}
	// A network that is not router:external is not an external network,
	// by ID or by name.
	_, err := c.ExternalNetwork(ctx, privNetID)
	wantNotFound(t, err, KindExternalNetwork)
	_, err = c.ExternalNetwork(ctx, "private")
	wantNotFound(t, err, KindExternalNetwork)
	_, err = c.ExternalNetwork(ctx, "dupnet")
	wantAmbiguous(t, err, KindExternalNetwork)

	// Two projects have a network named private: the caller's is found.
	n, err := c.Network(ctx, "private")
	if err != nil || n.ID != privNetID {
		t.Fatalf("network private: %+v %v", n, err)
	}
	_, err = c.Network(ctx, otherNetID)
	wantNotFound(t, err, KindNetwork)
	_, err = c.Network(context.Background(), "private") // unscoped: both
	wantAmbiguous(t, err, KindNetwork)

	for _, ref := range []string{subnetID, "private-subnet"} {
		s, err := c.Subnet(ctx, ref, privNetID)
		if err != nil || s.ID != subnetID || s.NetworkID != privNetID {
			t.Fatalf("subnet %s: %+v %v", ref, s, err)
		}
	}
	_, err = c.Subnet(ctx, subnetID, otherNetID)
	wantNotFound(t, err, KindSubnet)

	// The external check went through Neutron's router:external filter.
	found := false
	for _, r := range f.log() {
		if r == "GET /network/v2.0/networks?name=private&router%3Aexternal=true" {
			found = true
		}
	}
	if !found {
		t.Errorf("no filtered external network list in %q", f.log())
	}
}

func TestClientKeypairAndVolumeType(t *testing.T) {
	_, c := populated(t)
	ctx := scoped()
	if err := c.Keypair(ctx, "mykey"); err != nil {
		t.Fatalf("keypair of the caller: %v", err)
	}
	wantNotFound(t, c.Keypair(ctx, "otherkey"), KindKeypair)
	// Without a user in scope the service user's own keypairs are read.
	wantNotFound(t, c.Keypair(context.Background(), "mykey"), KindKeypair)

	for _, ref := range []string{vtypeID, "ssd"} {
		if err := c.VolumeType(ctx, ref); err != nil {
			t.Fatalf("volume type %s: %v", ref, err)
		}
	}
	wantNotFound(t, c.VolumeType(ctx, "hdd"), KindVolumeType)
}

func TestClientCloudDown(t *testing.T) {
	f, _ := populated(t)
	opts := f.options()
	f.Close()
	_, err := New(opts).Flavor(context.Background(), "42")
	var nf *NotFoundError
	if err == nil || errors.As(err, &nf) {
		t.Fatalf("an unreachable cloud must be a plain error, got %v", err)
	}
}
