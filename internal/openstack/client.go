package openstack

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"sync"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/blockstorage/v3/volumetypes"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/flavors"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/keypairs"
	"github.com/gophercloud/gophercloud/v2/openstack/image/v2/images"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/extensions/external"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/networks"
	"github.com/gophercloud/gophercloud/v2/openstack/networking/v2/subnets"
)

// Options configure Client: keel's service credentials and where the
// services are.
type Options struct {
	// Auth authenticates keel's service user (AllowReauth is forced on:
	// the client outlives tokens).
	Auth gophercloud.AuthOptions
	// Region of the services; Availability the endpoint interface
	// (default public).
	Region       string
	Availability gophercloud.Availability
	// HTTPClient overrides the HTTP client (CA bundle, timeouts).
	HTTPClient *http.Client
}

// HTTPClientWithCA returns an HTTP client for OpenStack's APIs (Keystone
// and the services) that trusts the PEM certificates of caFile on top of
// the system's, as gophercloud does with clouds.yaml's cacert. caFile ""
// is nil: Go's default client.
func HTTPClientWithCA(caFile string) (*http.Client, error) {
	if caFile == "" {
		return nil, nil
	}
	data, err := os.ReadFile(caFile)
	if err != nil {
		return nil, err
	}
	pool, err := x509.SystemCertPool()
	if err != nil || pool == nil {
		pool = x509.NewCertPool()
	}
	if !pool.AppendCertsFromPEM(data) {
		return nil, errors.New(caFile + ": no PEM certificate in it")
	}
	tr := http.DefaultTransport.(*http.Transport).Clone()
	tr.TLSClientConfig = &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	return &http.Client{Transport: tr}, nil
}

// Client is the Cloud of a real OpenStack, asked with keel's service
// credentials on behalf of the Scope in the context. It authenticates on
// first use (and again after a failure), so keel starts while Keystone is
// unreachable.
type Client struct {
	opts Options

	mu                              sync.Mutex
	compute, image, network, volume *gophercloud.ServiceClient
}

var _ Cloud = (*Client)(nil)

// New returns a Client; nothing is contacted until the first lookup.
func New(opts Options) *Client {
	opts.Auth.AllowReauth = true
	return &Client{opts: opts}
}

// services authenticates once and builds the service clients.
func (c *Client) services(ctx context.Context) (compute, image, network, volume *gophercloud.ServiceClient, err error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.compute != nil {
		return c.compute, c.image, c.network, c.volume, nil
	}
	provider, err := gcos.NewClient(c.opts.Auth.IdentityEndpoint)
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("openstack: %w", err)
	}
	if c.opts.HTTPClient != nil {
		provider.HTTPClient = *c.opts.HTTPClient
	}
	if err := gcos.Authenticate(ctx, provider, c.opts.Auth); err != nil {
		return nil, nil, nil, nil, fmt.Errorf("openstack: authenticating keel's service user: %w", err)
	}
	eo := gophercloud.EndpointOpts{Region: c.opts.Region, Availability: c.opts.Availability}
	if compute, err = gcos.NewComputeV2(provider, eo); err == nil {
		if image, err = gcos.NewImageV2(provider, eo); err == nil {
			if network, err = gcos.NewNetworkV2(provider, eo); err == nil {
				volume, err = gcos.NewBlockStorageV3(provider, eo)
			}
		}
	}
	if err != nil {
		return nil, nil, nil, nil, fmt.Errorf("openstack: service catalog: %w", err)
	}
	c.compute, c.image, c.network, c.volume = compute, image, network, volume
	return compute, image, network, volume, nil
}

var uuidRE = regexp.MustCompile(`^[0-9a-fA-F]{8}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{4}-?[0-9a-fA-F]{12}$`)

func isNotFound(err error) bool { return gophercloud.ResponseCodeIs(err, http.StatusNotFound) }

// one picks the unique match of a name lookup.
func one[T any](kind Kind, ref string, matches []T) (T, error) {
	var zero T
	switch len(matches) {
	case 0:
		return zero, &NotFoundError{Kind: kind, Ref: ref}
	case 1:
		return matches[0], nil
	}
	return zero, &AmbiguousError{Kind: kind, Ref: ref, Count: len(matches)}
}

func lookupErr(kind Kind, ref string, err error) error {
	if gophercloud.ResponseCodeIs(err, http.StatusForbidden) {
		return &ForbiddenError{Kind: kind, Ref: ref}
	}
	return fmt.Errorf("openstack: looking up %s %q: %w", kind, ref, err)
}

// Image looks a Glance image up by UUID, then by name among the images the
// scope's project may use.
func (c *Client) Image(ctx context.Context, ref string) (*Image, error) {
	_, ic, _, _, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	project := ScopeOf(ctx).ProjectID
	usable := func(im *images.Image) bool {
		return project == "" || im.Visibility != images.ImageVisibilityPrivate || im.Owner == project
	}
	var found *images.Image
	if uuidRE.MatchString(ref) {
		im, err := images.Get(ctx, ic, ref).Extract()
		switch {
		case err == nil && usable(im):
			found = im
		case err == nil, isNotFound(err):
		default:
			return nil, lookupErr(KindImage, ref, err)
		}
	}
	if found == nil {
		pages, err := images.List(ic, images.ListOpts{Name: ref}).AllPages(ctx)
		if err != nil {
			return nil, lookupErr(KindImage, ref, err)
		}
		all, err := images.ExtractImages(pages)
		if err != nil {
			return nil, lookupErr(KindImage, ref, err)
		}
		var matches []*images.Image
		for i := range all {
			if all[i].Name == ref && usable(&all[i]) {
				matches = append(matches, &all[i])
			}
		}
		if found, err = one(KindImage, ref, matches); err != nil {
			return nil, err
		}
	}
	prop := func(k string) string {
		s, _ := found.Properties[k].(string)
		return s
	}
	out := &Image{UUID: found.ID, Name: found.Name, OSDistro: prop("os_distro"), HwDiskBus: prop("hw_disk_bus"), MinDisk: int64(found.MinDiskGigabytes)}
	if out.OSDistro == "" {
		return nil, &NotFoundError{Kind: KindOSDistro, Ref: ref}
	}
	return out, nil
}

// Flavor looks a Nova flavor up by ID, then by name (Nova flavor IDs are
// free strings, so the ID is always tried).
func (c *Client) Flavor(ctx context.Context, ref string) (*Flavor, error) {
	cc, _, _, _, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	conv := func(f *flavors.Flavor) *Flavor {
		return &Flavor{ID: f.ID, Name: f.Name, VCPUs: int64(f.VCPUs), RAMMiB: int64(f.RAM), DiskGiB: int64(f.Disk)}
	}
	f, err := flavors.Get(ctx, cc, ref).Extract()
	if err == nil {
		return conv(f), nil
	}
	if !isNotFound(err) {
		return nil, lookupErr(KindFlavor, ref, err)
	}
	pages, err := flavors.ListDetail(cc, flavors.ListOpts{}).AllPages(ctx)
	if err != nil {
		return nil, lookupErr(KindFlavor, ref, err)
	}
	all, err := flavors.ExtractFlavors(pages)
	if err != nil {
		return nil, lookupErr(KindFlavor, ref, err)
	}
	var matches []*flavors.Flavor
	for i := range all {
		if all[i].Name == ref {
			matches = append(matches, &all[i])
		}
	}
	m, err := one(KindFlavor, ref, matches)
	if err != nil {
		return nil, err
	}
	return conv(m), nil
}

// neutronNetwork is a network with the attributes keel filters on.
type neutronNetwork struct {
	networks.Network
	external.NetworkExternalExt
}

func (c *Client) findNetwork(ctx context.Context, kind Kind, ref string, usable func(*neutronNetwork) bool) (*Network, error) {
	_, _, nc, _, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	if uuidRE.MatchString(ref) {
		var n neutronNetwork
		err := networks.Get(ctx, nc, ref).ExtractInto(&n)
		switch {
		case err == nil && usable(&n):
			return &Network{ID: n.ID, Name: n.Name}, nil
		case err == nil, isNotFound(err):
		default:
			return nil, lookupErr(kind, ref, err)
		}
	}
	var opts networks.ListOptsBuilder = networks.ListOpts{Name: ref}
	if kind == KindExternalNetwork {
		yes := true
		opts = external.ListOptsExt{ListOptsBuilder: opts, External: &yes}
	}
	pages, err := networks.List(nc, opts).AllPages(ctx)
	if err != nil {
		return nil, lookupErr(kind, ref, err)
	}
	var all []neutronNetwork
	if err := networks.ExtractNetworksInto(pages, &all); err != nil {
		return nil, lookupErr(kind, ref, err)
	}
	var matches []*neutronNetwork
	for i := range all {
		if all[i].Name == ref && usable(&all[i]) {
			matches = append(matches, &all[i])
		}
	}
	n, err := one(kind, ref, matches)
	if err != nil {
		return nil, err
	}
	return &Network{ID: n.ID, Name: n.Name}, nil
}

// ExternalNetwork looks a router:external network up by ID, then by name.
// A network that exists but is not external is not found (Magnum's
// ExternalNetworkNotFound says "Or the network is private").
func (c *Client) ExternalNetwork(ctx context.Context, ref string) (*Network, error) {
	return c.findNetwork(ctx, KindExternalNetwork, ref, func(n *neutronNetwork) bool { return n.External })
}

// Network looks a network up by ID, then by name, among the scope
// project's own and the shared networks.
func (c *Client) Network(ctx context.Context, ref string) (*Network, error) {
	project := ScopeOf(ctx).ProjectID
	return c.findNetwork(ctx, KindNetwork, ref, func(n *neutronNetwork) bool {
		return project == "" || n.Shared || n.ProjectID == project || n.TenantID == project
	})
}

// Subnet looks a subnet up by ID, then by name, within networkID when
// given (else among the scope project's subnets).
func (c *Client) Subnet(ctx context.Context, ref, networkID string) (*Subnet, error) {
	_, _, nc, _, err := c.services(ctx)
	if err != nil {
		return nil, err
	}
	project := ScopeOf(ctx).ProjectID
	usable := func(s *subnets.Subnet) bool {
		if networkID != "" {
			return s.NetworkID == networkID
		}
		return project == "" || s.ProjectID == project || s.TenantID == project
	}
	if uuidRE.MatchString(ref) {
		s, err := subnets.Get(ctx, nc, ref).Extract()
		switch {
		case err == nil && usable(s):
			return &Subnet{ID: s.ID, Name: s.Name, NetworkID: s.NetworkID}, nil
		case err == nil, isNotFound(err):
		default:
			return nil, lookupErr(KindSubnet, ref, err)
		}
	}
	pages, err := subnets.List(nc, subnets.ListOpts{Name: ref, NetworkID: networkID}).AllPages(ctx)
	if err != nil {
		return nil, lookupErr(KindSubnet, ref, err)
	}
	all, err := subnets.ExtractSubnets(pages)
	if err != nil {
		return nil, lookupErr(KindSubnet, ref, err)
	}
	var matches []*subnets.Subnet
	for i := range all {
		if all[i].Name == ref && usable(&all[i]) {
			matches = append(matches, &all[i])
		}
	}
	s, err := one(KindSubnet, ref, matches)
	if err != nil {
		return nil, err
	}
	return &Subnet{ID: s.ID, Name: s.Name, NetworkID: s.NetworkID}, nil
}

// Keypair checks a Nova keypair of the scope's user (compute microversion
// 2.10 lets keel's service user read another user's keypair).
func (c *Client) Keypair(ctx context.Context, name string) error {
	cc, _, _, _, err := c.services(ctx)
	if err != nil {
		return err
	}
	var opts keypairs.GetOpts
	if u := ScopeOf(ctx).UserID; u != "" {
		scoped := *cc
		scoped.Microversion = "2.10"
		cc, opts.UserID = &scoped, u
	}
	if err := keypairs.Get(ctx, cc, name, opts).Err; err != nil {
		if isNotFound(err) {
			return &NotFoundError{Kind: KindKeypair, Ref: name}
		}
		return lookupErr(KindKeypair, name, err)
	}
	return nil
}

// VolumeType checks a Cinder volume type by ID, then by name.
func (c *Client) VolumeType(ctx context.Context, ref string) error {
	_, _, _, vc, err := c.services(ctx)
	if err != nil {
		return err
	}
	if uuidRE.MatchString(ref) {
		err := volumetypes.Get(ctx, vc, ref).Err
		if err == nil {
			return nil
		}
		if !isNotFound(err) {
			return lookupErr(KindVolumeType, ref, err)
		}
	}
	pages, err := volumetypes.List(vc, volumetypes.ListOpts{}).AllPages(ctx)
	if err != nil {
		return lookupErr(KindVolumeType, ref, err)
	}
	all, err := volumetypes.ExtractVolumeTypes(pages)
	if err != nil {
		return lookupErr(KindVolumeType, ref, err)
	}
	var matches []*volumetypes.VolumeType
	for i := range all {
		if all[i].Name == ref {
			matches = append(matches, &all[i])
		}
	}
	_, err = one(KindVolumeType, ref, matches)
	return err
}
