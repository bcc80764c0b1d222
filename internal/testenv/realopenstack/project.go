package realopenstack

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/domains"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/projects"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/roles"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/users"
)

// Project is a Keystone project of the test domain with one user, made
// for one test: a cloud's tenant as a keel user is one.
type Project struct {
	ID, Name, DomainID string
	// UserID, UserName and Password are the project's user's.
	UserID, UserName, Password string
	// Roles are the user's roles in the project.
	Roles []string

	cloud *Cloud
}

// MemberRoles are a cloud user's usual roles: member (implying reader),
// and load-balancer_member, without which Octavia's default policy
// refuses a project's members.
var MemberRoles = []string{"member", "load-balancer_member"}

// NewProject makes a project and its user with roles (MemberRoles when
// none), and deletes them when the test ends, after everything the
// project holds in the services (Purge). Names carry the test's name and
// a random suffix.
func (c *Cloud) NewProject(t testing.TB, roleNames ...string) *Project {
	t.Helper()
	if len(roleNames) == 0 {
		roleNames = MemberRoles
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	ic := c.identity(t)
	domainID := c.testDomain(t, ic)
	name := uniqueName(t)
	p, err := projects.Create(ctx, ic, projects.CreateOpts{Name: name, DomainID: domainID,
		Description: "keel test " + t.Name()}).Extract()
	if err != nil {
		t.Fatalf("creating project %s: %v", name, err)
	}
	pr := &Project{ID: p.ID, Name: name, DomainID: domainID, UserName: name, Roles: roleNames, cloud: c}
	t.Cleanup(func() { pr.remove(t, ic) })
	c.addUser(ctx, t, ic, pr)
	return pr
}

// addUser creates pr's user (named pr.UserName) in its project with
// pr.Roles, and sets pr.UserID and pr.Password.
func (c *Cloud) addUser(ctx context.Context, t testing.TB, ic *gophercloud.ServiceClient, pr *Project) {
	t.Helper()
	pr.Password = randomHex(16)
	u, err := users.Create(ctx, ic, users.CreateOpts{Name: pr.UserName, DomainID: pr.DomainID, Password: pr.Password,
		DefaultProjectID: pr.ID}).Extract()
	if err != nil {
		t.Fatalf("creating user %s: %v", pr.UserName, err)
	}
	pr.UserID = u.ID
	for _, rn := range pr.Roles {
		if err := roles.Assign(ctx, ic, c.roleID(t, ic, rn), roles.AssignOpts{UserID: u.ID, ProjectID: pr.ID}).ExtractErr(); err != nil {
			t.Fatalf("granting %s on %s: %v", rn, pr.Name, err)
		}
	}
}

// AnotherUser adds a user to the project with roleNames (MemberRoles when
// none): the returned Project is the same project, as that user. The user
// is deleted when the test ends.
func (p *Project) AnotherUser(t testing.TB, roleNames ...string) *Project {
	t.Helper()
	if len(roleNames) == 0 {
		roleNames = MemberRoles
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	other := &Project{ID: p.ID, Name: p.Name, DomainID: p.DomainID, UserName: p.UserName + "-" + randomHex(3),
		Roles: roleNames, cloud: p.cloud}
	t.Cleanup(func() { other.DeleteUser(t) })
	p.cloud.addUser(ctx, t, p.cloud.identity(t), other)
	return other
}

// DeleteUser deletes the project's user in Keystone, as an operator does
// when someone leaves: Keystone deletes the user's application credentials
// with them. Already gone is fine.
func (p *Project) DeleteUser(t testing.TB) {
	t.Helper()
	if p.UserID == "" {
		return
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	err := users.Delete(ctx, p.cloud.identity(t), p.UserID).ExtractErr()
	if err != nil && !gophercloud.ResponseCodeIs(err, 404) {
		t.Errorf("deleting user %s: %v", p.UserName, err)
	}
}

// remove purges the project, then deletes the user (and with it the
// user's application credentials) and the project.
func (p *Project) remove(t testing.TB, ic *gophercloud.ServiceClient) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	p.Purge(t)
	if p.UserID != "" {
		if err := users.Delete(ctx, ic, p.UserID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
			t.Errorf("deleting test user %s: %v", p.UserName, err)
		}
	}
	if err := projects.Delete(ctx, ic, p.ID).ExtractErr(); err != nil && !gophercloud.ResponseCodeIs(err, 404) {
		t.Errorf("deleting test project %s: %v", p.Name, err)
	}
}

// AuthOptions authenticate the project's user, scoped to the project.
func (p *Project) AuthOptions() gophercloud.AuthOptions {
	return gophercloud.AuthOptions{IdentityEndpoint: p.cloud.AuthURL, UserID: p.UserID, Password: p.Password,
		Scope: &gophercloud.AuthScope{ProjectID: p.ID}}
}

// Provider returns a provider authenticated as the project's user.
func (p *Project) Provider(t testing.TB) *gophercloud.ProviderClient {
	t.Helper()
	pc, err := Authenticate(p.AuthOptions())
	if err != nil {
		t.Fatalf("authenticating %s: %v", p.UserName, err)
	}
	return pc
}

// Token returns a new project-scoped token of the project's user.
func (p *Project) Token(t testing.TB) string {
	t.Helper()
	return p.Provider(t).Token()
}

// identity is the admin's Keystone client.
func (c *Cloud) identity(t testing.TB) *gophercloud.ServiceClient {
	t.Helper()
	ic, err := gcos.NewIdentityV3(c.Admin(t), c.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	return ic
}

// testDomain returns the test domain's ID (hack/openstack.sh made it).
func (c *Cloud) testDomain(t testing.TB, ic *gophercloud.ServiceClient) string {
	t.Helper()
	c.mu.Lock()
	defer c.mu.Unlock()
	if id := c.domains[c.TestDomain]; id != "" {
		return id
	}
	pages, err := domains.List(ic, domains.ListOpts{Name: c.TestDomain}).AllPages(context.Background())
	if err != nil {
		t.Fatalf("listing domain %s: %v", c.TestDomain, err)
	}
	ds, err := domains.ExtractDomains(pages)
	if err != nil || len(ds) != 1 {
		t.Fatalf("domain %s: %d found (%v); hack/openstack.sh up makes it", c.TestDomain, len(ds), err)
	}
	c.domains[c.TestDomain] = ds[0].ID
	return ds[0].ID
}

// roleID returns a role's ID by name.
func (c *Cloud) roleID(t testing.TB, ic *gophercloud.ServiceClient, name string) string {
	t.Helper()
	pages, err := roles.List(ic, roles.ListOpts{Name: name}).AllPages(context.Background())
	if err != nil {
		t.Fatalf("listing role %s: %v", name, err)
	}
	rs, err := roles.ExtractRoles(pages)
	if err != nil || len(rs) != 1 {
		t.Fatalf("role %s: %d found (%v)", name, len(rs), err)
	}
	return rs[0].ID
}

var unsafeChars = regexp.MustCompile(`[^A-Za-z0-9-]+`)

// uniqueName is the test's name, made a safe Keystone name, with a random
// suffix: a project's name is unique in its domain, and a test may run
// twice (-count) against the same stack.
func uniqueName(t testing.TB) string {
	n := strings.Trim(unsafeChars.ReplaceAllString(t.Name(), "-"), "-")
	if len(n) > 40 {
		n = n[:40]
	}
	return fmt.Sprintf("%s-%s", n, randomHex(4))
}

func randomHex(n int) string {
	b := make([]byte, n)
	_, _ = rand.Read(b)
	return hex.EncodeToString(b)
}

// UserToken is a new project-scoped token of the project's user, with the
// catalog and expiry Keystone issued it with: what keel's API has of a
// caller once it has validated their token.
func (p *Project) UserToken(t testing.TB) (id string, catalog []tokens.CatalogEntry, expiresAt time.Time) {
	t.Helper()
	pc := p.Provider(t)
	res, ok := pc.GetAuthResult().(tokens.CreateResult)
	if !ok {
		t.Fatalf("authentication result %T is not Keystone v3's", pc.GetAuthResult())
	}
	cat, err := res.ExtractServiceCatalog()
	if err != nil {
		t.Fatal(err)
	}
	tok, err := res.ExtractToken()
	if err != nil {
		t.Fatal(err)
	}
	return tok.ID, cat.Entries, tok.ExpiresAt
}
