// Package realopenstack attaches tests to keel's test cloud: the real
// OpenStack control plane (Keystone, Nova, Neutron, Glance, Cinder,
// Octavia, Placement) that hack/openstack.sh starts on loopback with only
// the hypervisor faked (docs/openstack.md). The stack is started once per
// test run; each test gets a Keystone project and user of its own
// (NewProject), so tests sharing the cloud do not see each other's
// resources, and everything the project holds is deleted when the test
// ends.
//
// The stack is found through KEEL_OPENSTACK_ENV, the env file
// `hack/openstack.sh up` prints. Without it a test that needs the stack is
// skipped, unless KEEL_REQUIRE_OPENSTACK=1 (make test, CI), which makes
// that a failure.
package realopenstack

import (
	"bufio"
	"context"
	"fmt"
	"os"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
)

// Environment variables that find the stack.
const (
	// EnvFile names the env file hack/openstack.sh writes.
	EnvFile = "KEEL_OPENSTACK_ENV"
	// Require, set to 1, fails a test that finds no stack.
	Require = "KEEL_REQUIRE_OPENSTACK"
	// OctaviaDB is the env file's URL of Octavia's database (PostgreSQL),
	// which SetLoadBalancerStatus writes.
	OctaviaDB = "KEEL_OPENSTACK_OCTAVIA_DB"
)

// Cloud is the running stack, as its operator (admin) sees it.
type Cloud struct {
	// AuthURL is Keystone's /v3; Region the services' region.
	AuthURL, Region string
	// ExternalNetwork is the name of the external network, whose subnet
	// (FloatingIPCIDR) is on loopback; Image a public image's name (with
	// os_distro); Flavors the public flavors' names.
	ExternalNetwork, FloatingIPCIDR, Image string
	Flavors                                []string
	// TestDomain holds the tests' projects and users.
	TestDomain string

	vars map[string]string

	mu      sync.Mutex
	admin   *gophercloud.ProviderClient
	domains map[string]string // test domain ID, by name
}

var (
	attachOnce sync.Once
	attached   *Cloud
	attachErr  error
)

// Attach returns the stack named by KEEL_OPENSTACK_ENV, read once per
// process. Without it the test is skipped, or fails when
// KEEL_REQUIRE_OPENSTACK=1. A stack named but not answering fails the test.
func Attach(t testing.TB) *Cloud {
	t.Helper()
	path := os.Getenv(EnvFile)
	if path == "" {
		if os.Getenv(Require) == "1" {
			t.Fatalf("%s=1 but %s is unset: start the stack with hack/openstack.sh up (make test does)", Require, EnvFile)
		}
		t.Skipf("%s unset: this test needs the real OpenStack of hack/openstack.sh (make test starts it)", EnvFile)
	}
	attachOnce.Do(func() { attached, attachErr = load(path) })
	if attachErr != nil {
		t.Fatalf("%s=%s: %v", EnvFile, path, attachErr)
	}
	attached.Admin(t) // fails now, not in the middle of a test, when Keystone is down
	return attached
}

// load reads the env file's KEY=VALUE lines.
func load(path string) (*Cloud, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	vars := map[string]string{}
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		k, v, ok := strings.Cut(strings.TrimPrefix(line, "export "), "=")
		if !ok {
			return nil, fmt.Errorf("line %q is not KEY=VALUE", line)
		}
		vars[k] = v
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	c := &Cloud{vars: vars, AuthURL: vars["OS_AUTH_URL"], Region: vars["OS_REGION_NAME"],
		ExternalNetwork: vars["KEEL_OPENSTACK_EXTERNAL_NETWORK"], FloatingIPCIDR: vars["KEEL_OPENSTACK_FIP_CIDR"],
		Image: vars["KEEL_OPENSTACK_IMAGE"], TestDomain: vars["KEEL_OPENSTACK_TEST_DOMAIN"],
		Flavors: strings.Split(vars["KEEL_OPENSTACK_FLAVORS"], ","), domains: map[string]string{}}
	for k, v := range map[string]string{"OS_AUTH_URL": c.AuthURL, "OS_REGION_NAME": c.Region,
		"OS_PASSWORD": vars["OS_PASSWORD"], "KEEL_OPENSTACK_TEST_DOMAIN": c.TestDomain} {
		if v == "" {
			return nil, fmt.Errorf("%s is missing", k)
		}
	}
	return c, nil
}

// Var returns a variable of the env file ("" when absent).
func (c *Cloud) Var(name string) string { return c.vars[name] }

// AdminAuth authenticates the cloud's admin (project admin, domain
// Default).
func (c *Cloud) AdminAuth() gophercloud.AuthOptions {
	return gophercloud.AuthOptions{IdentityEndpoint: c.AuthURL, Username: c.vars["OS_USERNAME"],
		Password: c.vars["OS_PASSWORD"], DomainName: c.vars["OS_USER_DOMAIN_NAME"], AllowReauth: true,
		Scope: &gophercloud.AuthScope{ProjectName: c.vars["OS_PROJECT_NAME"], DomainName: c.vars["OS_PROJECT_DOMAIN_NAME"]}}
}

// ServiceAuth authenticates keel's service user (admin in the service
// project, as Magnum's is), for the credentials keel is configured with.
func (c *Cloud) ServiceAuth() gophercloud.AuthOptions {
	return gophercloud.AuthOptions{IdentityEndpoint: c.AuthURL, Username: c.vars["KEEL_OPENSTACK_SERVICE_USER"],
		Password: c.vars["KEEL_OPENSTACK_SERVICE_PASSWORD"], DomainName: "Default", AllowReauth: true,
		Scope: &gophercloud.AuthScope{ProjectName: c.vars["KEEL_OPENSTACK_SERVICE_PROJECT"], DomainName: "Default"}}
}

// Admin returns the admin's provider, authenticated once per process.
func (c *Cloud) Admin(t testing.TB) *gophercloud.ProviderClient {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.admin == nil {
		p, err := Authenticate(c.AdminAuth())
		if err != nil {
			t.Fatalf("the test cloud's admin: %v (is hack/openstack.sh up?)", err)
		}
		c.admin = p
	}
	return c.admin
}

// Authenticate returns a provider authenticated with opts.
func Authenticate(opts gophercloud.AuthOptions) (*gophercloud.ProviderClient, error) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	return gcos.AuthenticatedClient(ctx, opts)
}

// Endpoint is where a provider finds the services in the catalog.
func (c *Cloud) Endpoint() gophercloud.EndpointOpts {
	return gophercloud.EndpointOpts{Region: c.Region, Availability: gophercloud.AvailabilityPublic}
}
