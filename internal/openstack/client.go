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
	"time"

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

// Client is the Cloud of a real OpenStack. A lookup whose Scope carries the
// caller's token (Scope.Token) is asked with that token, at the endpoints of
// the caller's catalog, as Magnum asks with the request's token; any other
// is asked with keel's service credentials on behalf of the Scope. Either
// way the Scope's project filters what may be used. The service user
// authenticates on first use (and again after a failure), so keel starts
// while Keystone is unreachable.
type Client struct {
	opts Options

	mu sync.Mutex
	// provider is keel's service user's, once authenticated; service and
	// identity are built from it on first use.
	provider *gophercloud.ProviderClient
	service  *services
	lb       *lbServices // loadbalancers.go
	identity *gophercloud.ServiceClient
	users    map[string]userEntry // the callers' clients, by token hash
}

// services are the service clients a lookup uses: keel's service user's,
// or the caller's (user set).
type services struct {
	compute, image, network, volume *gophercloud.ServiceClient
	user                            *UserToken
}

// userEntry is a caller's services, reusable until until.
type userEntry struct {
	svc   *services
	until time.Time
}

// The callers' service clients are reused briefly (a request makes several
// lookups; a client's burst several requests), never beyond the token's
// expiry, for at most maxUserClients tokens.
const userClientsTTL = 5 * time.Minute

var maxUserClients = 1000 // a variable for tests

var _ Cloud = (*Client)(nil)

// New returns a Client; nothing is contacted until the first lookup.
func New(opts Options) *Client {
	opts.Auth.AllowReauth = true
	return &Client{opts: opts}
}

// services returns the clients of a lookup of kind and ref: the caller's
// when the scope carries their token, else keel's service user's. A
// caller's token is never traded for the service user's, whatever the
// services answer.
func (c *Client) services(ctx context.Context, kind Kind, ref string) (*services, error) {
	tok := ScopeOf(ctx).Token
	if tok == nil {
		return c.serviceUser(ctx)
	}
	s, err := c.userServices(ctx, tok)
	if err != nil {
		// Version discovery presents the token too.
		return nil, c.lookupErr(&services{user: tok}, kind, ref, err)
	}
	return s, nil
}

// newServices builds the four service clients from provider's catalog.
func (c *Client) newServices(provider *gophercloud.ProviderClient) (*services, error) {
	eo := gophercloud.EndpointOpts{Region: c.opts.Region, Availability: c.opts.Availability}
	s := &services{}
	var err error
	if s.compute, err = gcos.NewComputeV2(provider, eo); err == nil {
		if s.image, err = gcos.NewImageV2(provider, eo); err == nil {
			if s.network, err = gcos.NewNetworkV2(provider, eo); err == nil {
				s.volume, err = gcos.NewBlockStorageV3(provider, eo)
			}
		}
	}
	return s, err
}

// serviceProviderLocked authenticates keel's service user once (again
// after a failure); c.mu is held.
func (c *Client) serviceProviderLocked(ctx context.Context) (*gophercloud.ProviderClient, error) {
	if c.provider != nil {
		return c.provider, nil
	}
	provider, err := gcos.NewClient(c.opts.Auth.IdentityEndpoint)
	if err != nil {
		return nil, fmt.Errorf("openstack: %w", err)
	}
	if c.opts.HTTPClient != nil {
		provider.HTTPClient = *c.opts.HTTPClient
	}
	if err := gcos.Authenticate(ctx, provider, c.opts.Auth); err != nil {
		return nil, fmt.Errorf("openstack: authenticating keel's service user: %w", err)
	}
	c.provider = provider
	return provider, nil
}

// userProvider presents the caller's token at the endpoints of the
// caller's catalog. Nothing is asked of Keystone: the token was validated,
// with its catalog, by the API's authentication.
func (c *Client) userProvider(ctx context.Context, tok *UserToken) *gophercloud.ProviderClient {
	provider := &gophercloud.ProviderClient{}
	provider.UseTokenLock()
	if c.opts.HTTPClient != nil {
		provider.HTTPClient = *c.opts.HTTPClient
	}
	// No ReauthFunc: keel cannot renew the caller's token, so a 401 is the
	// services' answer, not a reason to authenticate as someone else.
	provider.SetToken(tok.id)
	// As for the service user: the catalog's endpoint for the configured
	// region and interface, whose version gophercloud discovers.
	catalog := tok.catalog
	provider.EndpointLocator = func(eo gophercloud.EndpointOpts) (string, error) {
		return gcos.V3Endpoint(ctx, provider, catalog, eo)
	}
	return provider
}

// serviceUser builds keel's service user's service clients once.
func (c *Client) serviceUser(ctx context.Context) (*services, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.service != nil {
		return c.service, nil
	}
	provider, err := c.serviceProviderLocked(ctx)
	if err != nil {
		return nil, err
	}
	s, err := c.newServices(provider)
	if err != nil {
		return nil, fmt.Errorf("openstack: service catalog: %w", err)
	}
	c.service = s
	return s, nil
}

// userServices builds (or reuses) the caller's service clients
// (userProvider).
func (c *Client) userServices(ctx context.Context, tok *UserToken) (*services, error) {
	now := time.Now()
	c.mu.Lock()
	e, ok := c.users[tok.hash]
	c.mu.Unlock()
	if ok && now.Before(e.until) {
		s := *e.svc
		s.user = tok // this request's token, with its own rejection hook
		return &s, nil
	}
	s, err := c.newServices(c.userProvider(ctx, tok))
	if err != nil {
		return nil, fmt.Errorf("the caller's service catalog: %w", err)
	}
	s.user = tok
	until := now.Add(userClientsTTL)
	if tok.expiresAt.Before(until) {
		until = tok.expiresAt
	}
	if now.Before(until) {
		c.rememberUser(tok.hash, userEntry{svc: s, until: until})
	}
	return s, nil
}

// rememberUser caches a caller's clients; when full, expired entries go
// first, then arbitrary ones.
func (c *Client) rememberUser(key string, e userEntry) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.users == nil {
		c.users = map[string]userEntry{}
	}
	if len(c.users) >= maxUserClients {
		now := time.Now()
		for k, old := range c.users {
			if !now.Before(old.until) {
				delete(c.users, k)
			}
		}
		for k := range c.users {
			if len(c.users) < maxUserClients {
				break
			}
			delete(c.users, k)
		}
	}
	c.users[key] = e
}

// rejected forgets a caller's token a service refused, and tells whoever
// validated it.
func (c *Client) rejected(tok *UserToken) {
	c.mu.Lock()
	delete(c.users, tok.hash)
	c.mu.Unlock()
	if tok.rejected != nil {
		tok.rejected()
	}
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

// serviceOf names the OpenStack service of a kind, as Magnum's clients do.
var serviceOf = map[Kind]string{
	KindImage: "glance", KindOSDistro: "glance", KindFlavor: "nova", KindKeypair: "nova", KindServerGroup: "nova",
	KindExternalNetwork: "neutron", KindNetwork: "neutron", KindSubnet: "neutron", KindVolumeType: "cinder",
	KindLoadBalancer: "octavia",
}

// lookupErr classifies a service's failure. A 403 is the caller's (or the
// scope's) lack of rights; a 401 to the caller's token means Keystone's
// word no longer holds (expired, revoked), which is answered, never retried
// as the service user.
func (c *Client) lookupErr(s *services, kind Kind, ref string, err error) error {
	switch {
	case gophercloud.ResponseCodeIs(err, http.StatusForbidden):
		return &ForbiddenError{Kind: kind, Ref: ref}
	case s.user != nil && gophercloud.ResponseCodeIs(err, http.StatusUnauthorized):
		c.rejected(s.user)
		return &UnauthorizedError{Kind: kind, Ref: ref, Service: serviceOf[kind]}
	}
	return fmt.Errorf("openstack: looking up %s %q: %w", kind, ref, err)
}

// Image looks a Glance image up by UUID, then by name among the images the
// scope's project may use.
func (c *Client) Image(ctx context.Context, ref string) (*Image, error) {
	s, err := c.services(ctx, KindImage, ref)
	if err != nil {
		return nil, err
	}
	ic := s.image
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
			return nil, c.lookupErr(s, KindImage, ref, err)
		}
	}
	if found == nil {
		pages, err := images.List(ic, images.ListOpts{Name: ref}).AllPages(ctx)
		if err != nil {
			return nil, c.lookupErr(s, KindImage, ref, err)
		}
		all, err := images.ExtractImages(pages)
		if err != nil {
			return nil, c.lookupErr(s, KindImage, ref, err)
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
	s, err := c.services(ctx, KindFlavor, ref)
	if err != nil {
		return nil, err
	}
	cc := s.compute
	conv := func(f *flavors.Flavor) *Flavor {
		return &Flavor{ID: f.ID, Name: f.Name, VCPUs: int64(f.VCPUs), RAMMiB: int64(f.RAM), DiskGiB: int64(f.Disk)}
	}
	f, err := flavors.Get(ctx, cc, ref).Extract()
	if err == nil {
		return conv(f), nil
	}
	if !isNotFound(err) {
		return nil, c.lookupErr(s, KindFlavor, ref, err)
	}
	pages, err := flavors.ListDetail(cc, flavors.ListOpts{}).AllPages(ctx)
	if err != nil {
		return nil, c.lookupErr(s, KindFlavor, ref, err)
	}
	all, err := flavors.ExtractFlavors(pages)
	if err != nil {
		return nil, c.lookupErr(s, KindFlavor, ref, err)
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
	s, err := c.services(ctx, kind, ref)
	if err != nil {
		return nil, err
	}
	nc := s.network
	if uuidRE.MatchString(ref) {
		var n neutronNetwork
		err := networks.Get(ctx, nc, ref).ExtractInto(&n)
		switch {
		case err == nil && usable(&n):
			return &Network{ID: n.ID, Name: n.Name}, nil
		case err == nil, isNotFound(err):
		default:
			return nil, c.lookupErr(s, kind, ref, err)
		}
	}
	var opts networks.ListOptsBuilder = networks.ListOpts{Name: ref}
	if kind == KindExternalNetwork {
		yes := true
		opts = external.ListOptsExt{ListOptsBuilder: opts, External: &yes}
	}
	pages, err := networks.List(nc, opts).AllPages(ctx)
	if err != nil {
		return nil, c.lookupErr(s, kind, ref, err)
	}
	var all []neutronNetwork
	if err := networks.ExtractNetworksInto(pages, &all); err != nil {
		return nil, c.lookupErr(s, kind, ref, err)
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
	svc, err := c.services(ctx, KindSubnet, ref)
	if err != nil {
		return nil, err
	}
	nc := svc.network
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
			return nil, c.lookupErr(svc, KindSubnet, ref, err)
		}
	}
	pages, err := subnets.List(nc, subnets.ListOpts{Name: ref, NetworkID: networkID}).AllPages(ctx)
	if err != nil {
		return nil, c.lookupErr(svc, KindSubnet, ref, err)
	}
	all, err := subnets.ExtractSubnets(pages)
	if err != nil {
		return nil, c.lookupErr(svc, KindSubnet, ref, err)
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

// Keypair checks a Nova keypair of the caller. With the caller's token it
// is simply theirs (Nova keypairs belong to the user asking, as in
// Magnum); keel's service user names the scope's user instead (compute
// microversion 2.10), which Nova allows admins only.
func (c *Client) Keypair(ctx context.Context, name string) error {
	s, err := c.services(ctx, KindKeypair, name)
	if err != nil {
		return err
	}
	cc := s.compute
	var opts keypairs.GetOpts
	if u := ScopeOf(ctx).UserID; u != "" && s.user == nil {
		scoped := *cc
		scoped.Microversion = "2.10"
		cc, opts.UserID = &scoped, u
	}
	if err := keypairs.Get(ctx, cc, name, opts).Err; err != nil {
		if isNotFound(err) {
			return &NotFoundError{Kind: KindKeypair, Ref: name}
		}
		return c.lookupErr(s, KindKeypair, name, err)
	}
	return nil
}

// VolumeType checks a Cinder volume type by ID, then by name.
func (c *Client) VolumeType(ctx context.Context, ref string) error {
	s, err := c.services(ctx, KindVolumeType, ref)
	if err != nil {
		return err
	}
	vc := s.volume
	if uuidRE.MatchString(ref) {
		err := volumetypes.Get(ctx, vc, ref).Err
		if err == nil {
			return nil
		}
		if !isNotFound(err) {
			return c.lookupErr(s, KindVolumeType, ref, err)
		}
	}
	pages, err := volumetypes.List(vc, volumetypes.ListOpts{}).AllPages(ctx)
	if err != nil {
		return c.lookupErr(s, KindVolumeType, ref, err)
	}
	all, err := volumetypes.ExtractVolumeTypes(pages)
	if err != nil {
		return c.lookupErr(s, KindVolumeType, ref, err)
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
