// Package auth authenticates Magnum API requests: Keystone token
// validation as keystonemiddleware does it (with its cache and coalesced
// validations), or noauth for the embedded and development setups. The
// credentials it puts on the request are what policy and the handlers read.
package auth

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/gin-gonic/gin"
	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/identity/v3/tokens"
	"golang.org/x/sync/singleflight"

	"github.com/openkeel/keel/intent"
	oscloud "github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/restapi/apierr"
)

// Credentials are the caller's identity, as keystonemiddleware passes it to
// Magnum.
type Credentials struct {
	UserID, UserName       string
	ProjectID, ProjectName string
	Roles                  []string
	// Token is the caller's validated Keystone token with its catalog (nil
	// under NoAuth, or when Keystone returned no catalog): the OpenStack
	// lookups run as the caller with it, as Magnum's do with the request's
	// token. It prints and logs as [redacted] and is never stored.
	Token *oscloud.UserToken `json:"-" yaml:"-"`
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
	if !intent.ValidProjectID(c.ProjectID) {
		return nil, badProjectID("X-Project-Id", c.ProjectID)
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

// badProjectID is the 400 of a project id keel cannot store, in WSME's
// words with the rule in the title (what `openstack coe` prints).
func badProjectID(field, id string) *apierr.Error {
	return apierr.BadRequest("Invalid input for field/attribute %s. Value: %s. %s", field, strconv.Quote(id), intent.ProjectIDRule)
}

func firstHeader(r *http.Request, name, def string) string {
	if v := strings.TrimSpace(r.Header.Get(name)); v != "" {
		return v
	}
	return def
}

// Keystone validates X-Auth-Token against Keystone v3 as keystonemiddleware
// does: keel's service user (Service) authenticates on first use and again
// when its own token expires; every user token is validated with
// GET /v3/auth/tokens (Keystone expands implied roles in the answer). The
// outcome — credentials, or "invalid" — is cached under the token's SHA-256
// (never the token itself) until the token expires, at most CacheTTL, so a
// client's burst of requests costs one validation. Concurrent first requests
// with one token share a single validation (singleflight), which runs on a
// context of its own bounded by Timeout: one caller going away does not fail
// the others, and a failure is answered to the callers that shared it but
// never cached.
//
// Unless NoCatalog, the validation asks for the token's service catalog, as
// keystonemiddleware does by default, and the credentials carry the token
// and its catalog (Credentials.Token) for the OpenStack lookups to run as
// the caller. A service refusing the token later (401) drops its cache
// entry, so the next request with it is validated again.
//
// A missing, unknown or expired token is 401 in keystonemiddleware's format;
// a token without a project is 403 (keel's resources all live in a
// project); Keystone unreachable or refusing the service user is 503 in
// Magnum's format, and the next request tries again.
type Keystone struct {
	// AuthURL is Keystone's endpoint, versioned (…/v3) or not.
	AuthURL string
	// Service is keel's service user (IdentityEndpoint comes from AuthURL).
	// It needs the service or admin role to validate other users' tokens.
	Service gophercloud.AuthOptions
	// CacheTTL bounds how long a validation is reused: default 5 minutes
	// (keystonemiddleware's token_cache_time); negative disables the cache.
	CacheTTL time.Duration
	// Timeout bounds a validation, keel's service user authentication
	// included, and each caller's wait for it (default 10 s).
	Timeout time.Duration
	// HTTPClient talks to Keystone (TLS settings); nil is Go's default.
	HTTPClient *http.Client
	// NoCatalog validates with ?nocatalog: nothing uses the caller's
	// catalog (lookups "given"), so the smaller answer will do, and the
	// lookups, if any, run as keel's service user.
	NoCatalog bool

	authMu sync.Mutex // serialises the service user's authentication
	client *gophercloud.ServiceClient

	mu    sync.Mutex
	cache map[string]cachedToken

	// flights coalesces concurrent validations of one token (by its key).
	flights singleflight.Group
	// OnJoin, when set (tests), is called once a caller has started or
	// joined its token's validation, before it waits for the outcome.
	OnJoin func()
}

// cachedToken is a validation outcome: creds, or the error to answer.
type cachedToken struct {
	creds *Credentials
	err   error
	until time.Time
}

// maxCachedTokens bounds the cache; when full, expired entries go first,
// then arbitrary ones.
const maxCachedTokens = 10000

const msgAuthRequired = "The request you have made requires authentication."

// errKeystoneUnavailable is a failure to validate a token that is not the
// token's fault: Keystone unreachable, erroring, or refusing keel's service
// user.
type errKeystoneUnavailable struct{ err error }

func (e errKeystoneUnavailable) Error() string { return e.err.Error() }
func (e errKeystoneUnavailable) Unwrap() error { return e.err }

func (k *Keystone) cacheTTL() time.Duration {
	if k.CacheTTL == 0 {
		return 5 * time.Minute
	}
	return k.CacheTTL
}

func (k *Keystone) timeout() time.Duration {
	if k.Timeout <= 0 {
		return 10 * time.Second
	}
	return k.Timeout
}

// serviceClient authenticates keel's service user once; a failure is not
// remembered, so keel recovers when Keystone comes back.
func (k *Keystone) serviceClient(ctx context.Context) (*gophercloud.ServiceClient, error) {
	k.authMu.Lock()
	defer k.authMu.Unlock()
	if k.client != nil {
		return k.client, nil
	}
	opts := k.Service
	opts.IdentityEndpoint = k.AuthURL
	opts.AllowReauth = true
	provider, err := openstack.NewClient(k.AuthURL)
	if err != nil {
		return nil, fmt.Errorf("keystone URL %q: %w", k.AuthURL, err)
	}
	if k.HTTPClient != nil {
		provider.HTTPClient = *k.HTTPClient
	}
	if err := openstack.Authenticate(ctx, provider, opts); err != nil {
		return nil, fmt.Errorf("authenticating keel's service user %q with Keystone at %s: %w", opts.Username, k.AuthURL, err)
	}
	client, err := openstack.NewIdentityV3(provider, gophercloud.EndpointOpts{})
	if err != nil {
		return nil, err
	}
	k.client = client
	return client, nil
}

// Authenticate implements Authenticator.
func (k *Keystone) Authenticate(ctx context.Context, r *http.Request) (*Credentials, error) {
	token := strings.TrimSpace(r.Header.Get("X-Auth-Token"))
	if token == "" {
		return nil, errUnauthorized{msgAuthRequired}
	}
	sum := sha256.Sum256([]byte(token))
	key := hex.EncodeToString(sum[:])
	if c, ok := k.lookup(key); ok {
		return c.creds, c.err
	}
	// The shared validation must not end with whichever caller started it,
	// so it keeps the caller's values but not its cancellation.
	detached := context.WithoutCancel(ctx)
	ch := k.flights.DoChan(key, func() (any, error) {
		// A flight that ended between this caller's lookup and DoChan has
		// cached its outcome: no second validation.
		if c, ok := k.lookup(key); ok {
			return c, nil
		}
		ctx, cancel := context.WithTimeout(detached, k.timeout())
		defer cancel()
		client, err := k.serviceClient(ctx)
		if err != nil {
			return nil, errKeystoneUnavailable{err}
		}
		outcome, err := k.validate(ctx, client, token, key)
		if err != nil {
			return nil, errKeystoneUnavailable{err}
		}
		k.remember(key, outcome)
		return outcome, nil
	})
	if k.OnJoin != nil {
		k.OnJoin()
	}
	// Each caller waits at most Timeout, even when the flight it joined is
	// itself waiting for the service user's authentication.
	wait := time.NewTimer(k.timeout())
	defer wait.Stop()
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		c := res.Val.(cachedToken)
		return c.creds, c.err
	case <-ctx.Done():
		return nil, errKeystoneUnavailable{ctx.Err()}
	case <-wait.C:
		// The flight is about to fail on its own deadline: a request
		// arriving now must not join it and inherit that failure (Keystone
		// may be answering again), so newcomers start a fresh validation.
		k.flights.Forget(key)
		return nil, errKeystoneUnavailable{fmt.Errorf("validating a token with Keystone at %s: no answer within %s", k.AuthURL, k.timeout())}
	}
}

// validate asks Keystone about token. The error is Keystone's failure; the
// token's own invalidity is the outcome's err.
func (k *Keystone) validate(ctx context.Context, client *gophercloud.ServiceClient, token, key string) (cachedToken, error) {
	now := time.Now()
	// tokens.Get, with the token's catalog unless NoCatalog.
	url := client.ServiceURL("auth", "tokens")
	if k.NoCatalog {
		url += "?nocatalog"
	}
	var res tokens.GetResult
	resp, err := client.Get(ctx, url, &res.Body, &gophercloud.RequestOpts{
		MoreHeaders: map[string]string{"X-Subject-Token": token},
		OkCodes:     []int{http.StatusOK, http.StatusNonAuthoritativeInfo},
	})
	_, res.Header, res.Err = gophercloud.ParseResponse(resp, err)
	if res.Err != nil {
		// 404 is Keystone's answer for an unknown, expired or revoked
		// token. A 401 here is about keel's own token, which gophercloud
		// has already tried to renew: a service problem, as is a 403 (the
		// service user may not validate tokens).
		if gophercloud.ResponseCodeIs(res.Err, http.StatusNotFound) {
			return cachedToken{err: errUnauthorized{msgAuthRequired}, until: now.Add(k.cacheTTL())}, nil
		}
		return cachedToken{}, fmt.Errorf("validating a token with Keystone at %s: %w", k.AuthURL, res.Err)
	}
	tok, err := res.ExtractToken()
	if err != nil {
		return cachedToken{}, fmt.Errorf("reading Keystone's token: %w", err)
	}
	user, err := res.ExtractUser()
	if err != nil || user == nil || user.ID == "" {
		return cachedToken{}, fmt.Errorf("reading Keystone's token: no user (%v)", err)
	}
	until := now.Add(k.cacheTTL())
	if tok.ExpiresAt.Before(until) {
		until = tok.ExpiresAt
	}
	project, err := res.ExtractProject()
	if err != nil {
		return cachedToken{}, fmt.Errorf("reading Keystone's token: %w", err)
	}
	if project == nil || project.ID == "" {
		return cachedToken{err: apierr.Forbidden("A project-scoped token is required: keel's clusters and templates belong to projects."), until: until}, nil
	}
	roles, err := res.ExtractRoles()
	if err != nil {
		return cachedToken{}, fmt.Errorf("reading Keystone's token: %w", err)
	}
	if !intent.ValidProjectID(project.ID) {
		// Keystone's own ids always pass; an identity backend that makes
		// others could name a folder outside the repository's layout.
		return cachedToken{err: apierr.Forbidden("The token's project id %s cannot be used: %s.", strconv.Quote(project.ID), intent.ProjectIDRule), until: until}, nil
	}
	creds := &Credentials{UserID: user.ID, UserName: user.Name, ProjectID: project.ID, ProjectName: project.Name}
	for _, role := range roles {
		creds.Roles = append(creds.Roles, role.Name)
	}
	if !k.NoCatalog {
		catalog, err := res.ExtractServiceCatalog()
		if err != nil {
			return cachedToken{}, fmt.Errorf("reading Keystone's token: %w", err)
		}
		// No catalog (none returned, or empty) leaves Token nil: the
		// lookups then run as keel's service user.
		creds.Token = oscloud.NewUserToken(token, catalog.Entries, tok.ExpiresAt, func() { k.forget(key) })
	}
	return cachedToken{creds: creds, until: until}, nil
}

func (k *Keystone) lookup(key string) (cachedToken, bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	c, ok := k.cache[key]
	if !ok {
		return cachedToken{}, false
	}
	if !time.Now().Before(c.until) {
		delete(k.cache, key)
		return cachedToken{}, false
	}
	return c, true
}

// forget drops a token's validation: a service refused the token since.
func (k *Keystone) forget(key string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.cache, key)
}

func (k *Keystone) remember(key string, c cachedToken) {
	now := time.Now()
	if k.CacheTTL < 0 || !now.Before(c.until) {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.cache == nil {
		k.cache = map[string]cachedToken{}
	}
	if len(k.cache) >= maxCachedTokens {
		for key, e := range k.cache {
			if !now.Before(e.until) {
				delete(k.cache, key)
			}
		}
		for key := range k.cache {
			if len(k.cache) < maxCachedTokens*9/10 {
				break
			}
			delete(k.cache, key)
		}
	}
	k.cache[key] = c
}

const ctxCreds = "keel.credentials"

// Middleware runs the authenticator; 401s are answered in Keystone's
// format, which clients (keystoneauth) understand, other refusals in
// Magnum's, and a failure to authenticate at all is a 503 whose cause is
// logged, not shown.
func Middleware(a Authenticator, authURL string) gin.HandlerFunc {
	return func(c *gin.Context) {
		creds, err := a.Authenticate(c.Request.Context(), c.Request)
		if err != nil {
			var u errUnauthorized
			var e *apierr.Error
			switch {
			case errors.As(err, &u):
				if authURL != "" {
					c.Header("WWW-Authenticate", fmt.Sprintf("Keystone uri=%q", authURL))
				}
				c.AbortWithStatusJSON(http.StatusUnauthorized, gin.H{"error": gin.H{
					"code": http.StatusUnauthorized, "title": "Unauthorized", "message": u.reason,
				}})
			case errors.As(err, &e):
				apierr.Abort(c, e)
			default:
				apierr.Log(c).Error("cannot authenticate the request", "err", err)
				apierr.Abort(c, &apierr.Error{Status: http.StatusServiceUnavailable,
					Msg: "Authentication is unavailable. The identity service could not validate the token; try again later."})
			}
			return
		}
		c.Set(ctxCreds, creds)
		// The lookups take the caller's token from the request's context
		// (FromContext), which is what they are given.
		c.Request = c.Request.WithContext(context.WithValue(c.Request.Context(), credsKey{}, creds))
		c.Next()
	}
}

// credsKey is the request context's key of the credentials.
type credsKey struct{}

// FromContext returns the credentials of the request ctx belongs to (nil
// outside one).
func FromContext(ctx context.Context) *Credentials {
	creds, _ := ctx.Value(credsKey{}).(*Credentials)
	return creds
}

// Of returns the request's credentials (empty ones before Middleware).
func Of(c *gin.Context) *Credentials {
	v, _ := c.Get(ctxCreds)
	creds, _ := v.(*Credentials)
	if creds == nil {
		return &Credentials{}
	}
	return creds
}
