// Package openstack is keel's one door to the OpenStack services the Magnum
// API consults when it accepts a change: Glance images, Nova flavors and
// keypairs, Neutron networks and subnets, Cinder volume types. The API
// resolves names to IDs (and reads the properties the compiler needs)
// through Cloud, records the answers as the cluster's intent.Facts in Git,
// and never asks again for the same cluster: compiling needs no OpenStack.
//
// Two implementations: Given, the embedded default, which takes every
// reference as it is given and never fails, and Client, which asks the
// cloud with the caller's token (Scope.Token) or, without one, with keel's
// service credentials.
package openstack

import (
	"context"
	"errors"
	"fmt"
)

// Cloud looks OpenStack resources up by name or ID, as Magnum does: a
// reference is first taken as an ID, then as a name, which must be unique
// (several matches are an *AmbiguousError). A missing resource is a
// *NotFoundError. Any other error is the cloud failing to answer.
type Cloud interface {
	// Image resolves a Glance image. An image without the os_distro
	// property is a *NotFoundError of KindOSDistro (Magnum refuses it).
	Image(ctx context.Context, ref string) (*Image, error)
	// Flavor resolves a Nova flavor.
	Flavor(ctx context.Context, ref string) (*Flavor, error)
	// ExternalNetwork resolves a Neutron network with router:external set.
	ExternalNetwork(ctx context.Context, ref string) (*Network, error)
	// Network resolves a Neutron network the caller's project may use (its
	// own or a shared one).
	Network(ctx context.Context, ref string) (*Network, error)
	// Subnet resolves a Neutron subnet, of networkID when not empty.
	Subnet(ctx context.Context, ref, networkID string) (*Subnet, error)
	// Keypair checks that the caller (Scope.UserID) has the Nova keypair.
	Keypair(ctx context.Context, name string) error
	// VolumeType checks that the Cinder volume type (name or ID) exists.
	VolumeType(ctx context.Context, ref string) error
}

// Image is what keel needs of a Glance image.
type Image struct {
	UUID      string
	Name      string
	OSDistro  string
	HwDiskBus string // the hw_disk_bus property ("" when unset)
	MinDisk   int64  // GiB
}

// Flavor is what keel needs of a Nova flavor. Sizes are zero when unknown.
type Flavor struct {
	ID      string
	Name    string
	VCPUs   int64
	RAMMiB  int64
	DiskGiB int64
}

// Sized reports whether the sizes are known. Nova has no flavor without
// vCPUs or RAM, so only Given answers with none; a sized flavor's zero
// DiskGiB is a real 0 GB root disk, an unsized one's means unknown.
func (f *Flavor) Sized() bool { return f.VCPUs > 0 && f.RAMMiB > 0 }

// Network is a Neutron network.
type Network struct {
	ID   string
	Name string
}

// Subnet is a Neutron subnet.
type Subnet struct {
	ID        string
	Name      string
	NetworkID string
}

// Kind names a kind of OpenStack resource in errors.
type Kind string

// Resource kinds.
const (
	KindImage           Kind = "image"
	KindOSDistro        Kind = "os_distro of image" // the image exists but has no os_distro
	KindFlavor          Kind = "flavor"
	KindExternalNetwork Kind = "external network"
	KindNetwork         Kind = "network"
	KindSubnet          Kind = "subnet"
	KindKeypair         Kind = "keypair"
	KindVolumeType      Kind = "volume type"
)

// NotFoundError: no resource of Kind answers to Ref (or none the caller
// may use, e.g. a network that is not external).
type NotFoundError struct {
	Kind Kind
	Ref  string
}

func (e *NotFoundError) Error() string { return fmt.Sprintf("%s %q not found", e.Kind, e.Ref) }

// AmbiguousError: several resources of Kind are named Ref.
type AmbiguousError struct {
	Kind  Kind
	Ref   string
	Count int
}

func (e *AmbiguousError) Error() string {
	return fmt.Sprintf("%d %ss are named %q: use the ID", e.Count, e.Kind, e.Ref)
}

// ForbiddenError: the resource exists but the caller may not use it.
type ForbiddenError struct {
	Kind Kind
	Ref  string
}

func (e *ForbiddenError) Error() string {
	return fmt.Sprintf("not authorized for %s %q", e.Kind, e.Ref)
}

// UnauthorizedError: a service refused the caller's own token (401), which
// Keystone had validated: it has since expired or been revoked. Magnum
// answers such Keystone-level client failures with AuthorizationFailure.
type UnauthorizedError struct {
	Kind    Kind
	Ref     string
	Service string // nova, glance, neutron, cinder
}

func (e *UnauthorizedError) Error() string {
	return fmt.Sprintf("%s refused the caller's token looking up %s %q (HTTP 401)", e.Service, e.Kind, e.Ref)
}

// IsNotFound reports whether err is a *NotFoundError of kind k.
func IsNotFound(err error, k Kind) bool {
	var nf *NotFoundError
	return errors.As(err, &nf) && nf.Kind == k
}

// Scope is on whose behalf a lookup is made: the project whose networks
// and images may be used, the user whose keypairs are checked. Token, when
// set (--auth keystone), is the caller's own token: Client then asks as
// the caller, as Magnum does; without it Client asks as keel's service
// user on the caller's behalf. The project filtering applies either way.
type Scope struct {
	ProjectID string
	UserID    string
	Token     *UserToken
}

type scopeKey struct{}

// WithScope attaches the caller's scope to a context.
func WithScope(ctx context.Context, s Scope) context.Context {
	return context.WithValue(ctx, scopeKey{}, s)
}

// ScopeOf returns the scope attached by WithScope (zero: no restriction).
func ScopeOf(ctx context.Context) Scope {
	s, _ := ctx.Value(scopeKey{}).(Scope)
	return s
}

// Given is the embedded default: it looks nothing up and never fails.
// Every reference is recorded as given (an image's UUID is its image_id, a
// flavor's name its flavor_id, a network's ID its name or ID), image
// properties are unknown (no os_distro, no hw_disk_bus) and flavor sizes
// are zero, so the compiler renders what the user wrote. Use it where
// there is no OpenStack (the embedded management cluster, the simulator,
// tests) or where the names are known to be the IDs the infrastructure
// provider accepts.
type Given struct{}

var _ Cloud = Given{}

// Image returns the reference as the image UUID.
func (Given) Image(_ context.Context, ref string) (*Image, error) {
	return &Image{UUID: ref, Name: ref}, nil
}

// Flavor returns the reference as the flavor ID and name.
func (Given) Flavor(_ context.Context, ref string) (*Flavor, error) {
	return &Flavor{ID: ref, Name: ref}, nil
}

// ExternalNetwork returns the reference as the network ID.
func (Given) ExternalNetwork(_ context.Context, ref string) (*Network, error) {
	return &Network{ID: ref, Name: ref}, nil
}

// Network returns the reference as the network ID.
func (Given) Network(_ context.Context, ref string) (*Network, error) {
	return &Network{ID: ref, Name: ref}, nil
}

// Subnet returns the reference as the subnet ID.
func (Given) Subnet(_ context.Context, ref, networkID string) (*Subnet, error) {
	return &Subnet{ID: ref, Name: ref, NetworkID: networkID}, nil
}

// Keypair accepts every keypair.
func (Given) Keypair(context.Context, string) error { return nil }

// VolumeType accepts every volume type.
func (Given) VolumeType(context.Context, string) error { return nil }
