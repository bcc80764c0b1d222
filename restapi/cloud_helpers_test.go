package restapi

import (
	"context"
	"sync"

	"github.com/openkeel/keel/internal/openstack"
)

// memCloud is an in-memory openstack.Cloud: resources are found by ID, then
// by name (several of one name are ambiguous), as the real client does.
type memCloud struct {
	images   []openstack.Image
	flavors  []openstack.Flavor
	extNets  []openstack.Network
	nets     []openstack.Network
	subnets  []openstack.Subnet
	keypairs map[string]bool
	vtypes   map[string]bool

	mu    sync.Mutex
	calls int
}

var _ openstack.Cloud = (*memCloud)(nil)

// newMemCloud holds the resources the test template and cluster name, with
// IDs unlike their names.
func newMemCloud() *memCloud {
	return &memCloud{
		images: []openstack.Image{
			{UUID: "8d4f6a2e-1111-4a55-9e0b-3f1d2c4b5a61", Name: "ubuntu-2204-kube", OSDistro: "ubuntu", HwDiskBus: "scsi"},
			{UUID: "8d4f6a2e-2222-4a55-9e0b-3f1d2c4b5a62", Name: "dup-image", OSDistro: "ubuntu"},
			{UUID: "8d4f6a2e-3333-4a55-9e0b-3f1d2c4b5a63", Name: "dup-image", OSDistro: "ubuntu"},
		},
		flavors: []openstack.Flavor{
			{ID: "3", Name: "m1.medium", VCPUs: 2, RAMMiB: 4096, DiskGiB: 40},
			{ID: "4", Name: "m1.large", VCPUs: 4, RAMMiB: 8192, DiskGiB: 80},
			{ID: "9", Name: "g1.gpu", VCPUs: 8, RAMMiB: 32768, DiskGiB: 100},
		},
		extNets: []openstack.Network{
			{ID: "5e0c7d7a-aaaa-4f0e-8c1e-0b9a8f7e6d51", Name: "public"},
			{ID: "5e0c7d7a-bbbb-4f0e-8c1e-0b9a8f7e6d52", Name: "dup-net"},
			{ID: "5e0c7d7a-cccc-4f0e-8c1e-0b9a8f7e6d53", Name: "dup-net"},
		},
		keypairs: map[string]bool{"mykey": true},
		vtypes:   map[string]bool{"ssd": true},
	}
}

func (m *memCloud) count() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.calls
}

func find[T any](m *memCloud, kind openstack.Kind, ref string, items []T, id, name func(T) string) (*T, error) {
	m.mu.Lock()
	m.calls++
	m.mu.Unlock()
	var matches []T
	for _, it := range items {
		if id(it) == ref {
			return &it, nil
		}
		if name(it) == ref {
			matches = append(matches, it)
		}
	}
	switch len(matches) {
	case 0:
		return nil, &openstack.NotFoundError{Kind: kind, Ref: ref}
	case 1:
		return &matches[0], nil
	}
	return nil, &openstack.AmbiguousError{Kind: kind, Ref: ref, Count: len(matches)}
}

func (m *memCloud) Image(_ context.Context, ref string) (*openstack.Image, error) {
	return find(m, openstack.KindImage, ref, m.images, func(i openstack.Image) string { return i.UUID }, func(i openstack.Image) string { return i.Name })
}

func (m *memCloud) Flavor(_ context.Context, ref string) (*openstack.Flavor, error) {
	return find(m, openstack.KindFlavor, ref, m.flavors, func(f openstack.Flavor) string { return f.ID }, func(f openstack.Flavor) string { return f.Name })
}

func netID(n openstack.Network) string   { return n.ID }
func netName(n openstack.Network) string { return n.Name }

func (m *memCloud) ExternalNetwork(_ context.Context, ref string) (*openstack.Network, error) {
	return find(m, openstack.KindExternalNetwork, ref, m.extNets, netID, netName)
}

func (m *memCloud) Network(_ context.Context, ref string) (*openstack.Network, error) {
	return find(m, openstack.KindNetwork, ref, m.nets, netID, netName)
}

func (m *memCloud) Subnet(_ context.Context, ref, _ string) (*openstack.Subnet, error) {
	return find(m, openstack.KindSubnet, ref, m.subnets, func(s openstack.Subnet) string { return s.ID }, func(s openstack.Subnet) string { return s.Name })
}

func (m *memCloud) Keypair(_ context.Context, name string) error {
	if !m.keypairs[name] {
		return &openstack.NotFoundError{Kind: openstack.KindKeypair, Ref: name}
	}
	return nil
}

func (m *memCloud) VolumeType(_ context.Context, ref string) error {
	if !m.vtypes[ref] {
		return &openstack.NotFoundError{Kind: openstack.KindVolumeType, Ref: ref}
	}
	return nil
}
