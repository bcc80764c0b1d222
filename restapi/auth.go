package restapi

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"net/http"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
)

// Credentials are the caller's identity, as keystonemiddleware passes it to
// Magnum.
type Credentials struct {
	UserID, UserName       string
	ProjectID, ProjectName string
	Roles                  []string
}

// HasRole reports whether the caller has role (roles are taken literally,
// as oslo.policy does; Keystone's implied roles arrive expanded).
func (c *Credentials) HasRole(role string) bool {
	for _, r := range c.Roles {
		if strings.EqualFold(r, role) {
			return true
		}
	}
	return false
}

// IsAdmin is Magnum's context_is_admin (role:admin).
func (c *Credentials) IsAdmin() bool { return c.HasRole("admin") }

// Authenticator turns a request into credentials, or refuses it.
type Authenticator interface {
	Authenticate(ctx context.Context, r *http.Request) (*Credentials, error)
}

// errUnauthorized is answered in keystonemiddleware's own format.
type errUnauthorized struct{ reason string }

func (e errUnauthorized) Error() string { return e.reason }

// NoAuth trusts the request: the embedded default and development setups.
// The project comes from X-Project-Id, else DefaultProject; the user from
// X-User-Id; roles from X-Roles, else admin (when Admin) + member + reader.
type NoAuth struct {
	DefaultProject string
	Admin          bool
}

// Authenticate implements Authenticator.
func (n NoAuth) Authenticate(_ context.Context, r *http.Request) (*Credentials, error) {
	c := &Credentials{
		UserID:      firstHeader(r, "X-User-Id", "noauth-user"),
		UserName:    firstHeader(r, "X-User-Name", "noauth"),
		ProjectID:   firstHeader(r, "X-Project-Id", n.DefaultProject),
		ProjectName: firstHeader(r, "X-Project-Name", ""),
	}
	if roles := r.Header.Get("X-Roles"); roles != "" {
		for _, role := range strings.Split(roles, ",") {
			if role = strings.TrimSpace(role); role != "" {
				c.Roles = append(c.Roles, role)
			}
		}
	} else {
		c.Roles = []string{"member", "reader"}
		if n.Admin {
			c.Roles = append([]string{"admin"}, c.Roles...)
		}
	}
	return c, nil
}

func firstHeader(r *http.Request, name, def string) string {
	if v := strings.TrimSpace(r.Header.Get(name)); v != "" {
		return v
	}
	return def
}

// Keystone validates X-Auth-Token against Keystone v3 with a service
// account (as keystonemiddleware does), caching valid tokens until they
// expire or for at most CacheTTL.
type Keystone struct {
	AuthURL  string
	Service  gophercloud.AuthOptions
	CacheTTL time.Duration

	once    sync.Once
	initErr error
	client  *gophercloud.ServiceClient
	mu      sync.Mutex
	cache   map[string]cachedToken
}

type cachedToken struct {
	creds *Credentials
	until time.Time
}

func (k *Keystone) init(ctx context.Context) error {
	k.once.Do(func() {
		opts := k.Service
		opts.IdentityEndpoint = k.AuthURL
		opts.AllowReauth = true
		provider, err := openstack.AuthenticatedClient(ctx, opts)
		if err != nil {
			k.initErr = fmt.Errorf("authenticating keel's service user with Keystone at %s: %w", k.AuthURL, err)
			return
		}
		k.client, k.initErr = openstack.NewIdentityV3(provider, gophercloud.EndpointOpts{})
		k.cache = map[string]cachedToken{}
	})
	return k.initErr
}

// Authenticate implements Authenticator.
func (k *Keystone) Authenticate(ctx context.Context, r *http.Request) (*Credentials, error) {
	token := r.Header.Get("X-Auth-Token")
	if token == "" {
		return nil, errUnauthorized{"The request you have made requires authentication."}
	}
	if err := k.init(ctx); err != nil {
		return nil, err
	}
	sum := sha256.Sum256([]byte(token)) // never keep tokens themselves
	key := hex.EncodeToString(sum[:])
	k.mu.Lock()
	if c, ok := k.cache[key]; ok && time.Now().Before(c.until) {
		k.mu.Unlock()
		return c.creds, nil
	}
	k.mu.Unlock()
	res := tokens.Get(ctx, k.client, token)
	tok, err := res.ExtractToken()
	if err != nil {
		if gophercloud.ResponseCodeIs(err, http.StatusNotFound) || gophercloud.ResponseCodeIs(err, http.StatusUnauthorized) {
			return nil, errUnauthorized{"The request you have made requires authentication."}
		}
		return nil, fmt.Errorf("validating the token with Keystone: %w", err)
	}
	user, err := res.ExtractUser()
	if err != nil {
		return nil, err
	}
	creds := &Credentials{UserID: user.ID, UserName: user.Name}
	if p, err := res.ExtractProject(); err == nil && p != nil {
		creds.ProjectID, creds.ProjectName = p.ID, p.Name
	}
	roles, err := res.ExtractRoles()
	if err != nil {
		return nil, err
	}
	for _, role := range roles {
		creds.Roles = append(creds.Roles, role.Name)
	}
	ttl := k.CacheTTL
	if ttl == 0 {
		ttl = 5 * time.Minute
	}
	until := time.Now().Add(ttl)
	if tok.ExpiresAt.Before(until) {
		until = tok.ExpiresAt
	}
	k.mu.Lock()
	k.cache[key] = cachedToken{creds: creds, until: until}
	k.mu.Unlock()
	return creds, nil
}

const ctxCreds = "keel.credentials"

// authenticate runs the authenticator; 401s are answered in Keystone's
// format, which clients (keystoneauth) understand.
func authenticate(a Authenticator, authURL string) gin.HandlerFunc {
	return func(c *gin.Context) {
		creds, err := a.Authenticate(c.Request.Context(), c.Request)
		if err != nil {
			if u, ok := err.(errUnauthorized); ok {
				if authURL != "" {
					c.Header("WWW-Authenticate", fmt.Sprintf("Keystone uri=%q", authURL))
				}
				c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"error": gin.H{
					"code": http.StatusUnauthorized, "title": "Unauthorized", "message": u.reason,
				}})
				return
			}
			abort(c, &Error{Status: http.StatusServiceUnavailable, Msg: err.Error()})
			return
		}
		c.Set(ctxCreds, creds)
		c.Next()
	}
}

func credsOf(c *gin.Context) *Credentials {
	v, _ := c.Get(ctxCreds)
	creds, _ := v.(*Credentials)
	if creds == nil {
		return &Credentials{}
	}
	return creds
}
