// Package keystonetest is an in-process Keystone v3 for tests: enough of the
// identity API for gophercloud and for keel's token validation (password
// authentication, token validation with implied roles, the version
// documents and a service catalog). Production code never imports it.
//
// A fake, kept for what the real Keystone cannot be made to do on demand:
// go down or hold requests mid-test, expire or revoke a token at a chosen
// moment, count validations, and run in-process in the many tests of
// authentication that need no other service. Keystone itself, its tokens
// and its application credentials are proven real by the TestRealOpenStack
// tests (docs/openstack.md) and the conformance suite.
package keystonetest

import (
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"encoding/pem"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
)

// Default names of the fake's domain, region and service account.
const (
	DomainID       = "default"
	DomainName     = "Default"
	Region         = "RegionOne"
	ServiceProject = "service"
	ServiceUser    = "keel"
	ServicePass    = "keel-service-password"
)

// impliedRoles is Keystone's default chain since Rocky:
// admin ⇒ member ⇒ reader.
var impliedRoles = map[string][]string{"admin": {"member"}, "member": {"reader"}}

// User is an account with one project assignment.
type User struct {
	ID, Name, Password     string
	ProjectID, ProjectName string
	// Roles are the assigned roles; tokens carry them with their implied
	// roles, as Keystone expands them.
	Roles []string
}

type token struct {
	user      *User
	scoped    bool
	expiresAt time.Time
	issuedAt  time.Time
	methods   []string
}

type endpoint struct{ typ, name, url string }

// Keystone is the fake identity service.
type Keystone struct {
	// URL is the unversioned identity endpoint (http://127.0.0.1:port);
	// AuthURL is its /v3.
	URL, AuthURL string
	// TokenTTL is the lifetime of issued tokens (default one hour).
	TokenTTL time.Duration

	srv       *httptest.Server
	mu        sync.Mutex
	users     map[string]*User // by name
	tokens    map[string]*token
	endpoints []endpoint
	down      bool
	requests  map[string]int
	// held, when not nil, makes requests wait until it is closed (Hold):
	// all of them, or those of holdPaths.
	held      chan struct{}
	holdPaths []string
	// appCreds are the application credentials, by ID (appcred.go).
	appCreds map[string]*ApplicationCredential
}

// New starts a fake Keystone, stopped when the test ends. It knows keel's
// service user (ServiceUser/ServicePass in project ServiceProject, role
// service).
func New(t testing.TB) *Keystone {
	t.Helper()
	return start(t, httptest.NewServer)
}

// NewTLS is New over HTTPS, with httptest's self-signed certificate
// (CACertFile writes it out as a CA bundle).
func NewTLS(t testing.TB) *Keystone {
	t.Helper()
	return start(t, httptest.NewTLSServer)
}

func start(t testing.TB, newServer func(http.Handler) *httptest.Server) *Keystone {
	k := &Keystone{users: map[string]*User{}, tokens: map[string]*token{}, requests: map[string]int{}}
	k.srv = newServer(http.HandlerFunc(k.serve))
	t.Cleanup(k.srv.Close)
	// Cleanups run last-registered first: held requests are let go before
	// Close waits for them.
	t.Cleanup(k.Release)
	k.URL = k.srv.URL
	k.AuthURL = k.srv.URL + "/v3"
	k.AddUser(User{ID: "keel-service-id", Name: ServiceUser, Password: ServicePass,
		ProjectID: "service-project-id", ProjectName: ServiceProject, Roles: []string{"service"}})
	return k
}

// AddUser creates (or replaces) a user.
func (k *Keystone) AddUser(u User) *User {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.users[u.Name] = &u
	return &u
}

// AddEndpoint publishes a public endpoint of service type typ in the
// catalog of tokens issued from now on.
func (k *Keystone) AddEndpoint(typ, name, url string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.endpoints = append(k.endpoints, endpoint{typ, name, url})
}

// Issue returns a new project-scoped token of the named user, valid for
// ttl (TokenTTL when 0), without going through the API.
func (k *Keystone) Issue(t testing.TB, user string, ttl time.Duration) string {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	u, ok := k.users[user]
	if !ok {
		t.Fatalf("keystonetest: no user %q", user)
	}
	return k.issueLocked(u, true, ttl, []string{"password"})
}

// IssueUnscoped returns a token of the named user with no project.
func (k *Keystone) IssueUnscoped(t testing.TB, user string) string {
	t.Helper()
	k.mu.Lock()
	defer k.mu.Unlock()
	u, ok := k.users[user]
	if !ok {
		t.Fatalf("keystonetest: no user %q", user)
	}
	return k.issueLocked(u, false, 0, []string{"password"})
}

// TokenUser returns (a copy of) the user of a valid token, nil for an
// unknown, expired or revoked one: fake OpenStack services of tests use it
// to answer as the token's user, as real ones ask Keystone.
func (k *Keystone) TokenUser(id string) *User {
	k.mu.Lock()
	defer k.mu.Unlock()
	tok := k.validLocked(id)
	if tok == nil {
		return nil
	}
	u := *tok.user
	u.Roles = expand(u.Roles)
	return &u
}

// Revoke invalidates a token.
func (k *Keystone) Revoke(id string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	delete(k.tokens, id)
}

// RevokeUser invalidates every token of the named user (keel's service
// user included), as a password change does.
func (k *Keystone) RevokeUser(name string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	for id, t := range k.tokens {
		if t.user.Name == name {
			delete(k.tokens, id)
		}
	}
}

// SetDown makes Keystone unreachable (connections are dropped) or brings
// it back.
func (k *Keystone) SetDown(down bool) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.down = down
}

// CACertFile writes the certificate of a NewTLS Keystone as a PEM bundle
// in the test's temporary folder and returns its path.
func (k *Keystone) CACertFile(t testing.TB) string {
	t.Helper()
	cert := k.srv.Certificate()
	if cert == nil {
		t.Fatal("keystonetest: CACertFile needs NewTLS")
	}
	path := filepath.Join(t.TempDir(), "keystone-ca.pem")
	if err := os.WriteFile(path, pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: cert.Raw}), 0o600); err != nil {
		t.Fatal(err)
	}
	return path
}

// Hold makes requests wait without an answer until Release, or until
// their client gives up: all requests, or only those of the given
// "METHOD /path" (e.g. "GET /v3/auth/tokens"). Held requests are counted
// (Requests) on arrival, and see Keystone as it is when released (SetDown,
// Revoke).
func (k *Keystone) Hold(methodPaths ...string) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.held == nil {
		k.held = make(chan struct{})
	}
	k.holdPaths = methodPaths
}

// Release lets held requests go on and stops holding new ones.
func (k *Keystone) Release() {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.held != nil {
		close(k.held)
		k.held = nil
	}
}

// Requests counts the requests answered so far for "METHOD /path".
func (k *Keystone) Requests(methodPath string) int {
	k.mu.Lock()
	defer k.mu.Unlock()
	return k.requests[methodPath]
}

// Validations counts token validations (GET /v3/auth/tokens).
func (k *Keystone) Validations() int { return k.Requests("GET /v3/auth/tokens") }

// Authentications counts token creations (POST /v3/auth/tokens).
func (k *Keystone) Authentications() int { return k.Requests("POST /v3/auth/tokens") }

func (k *Keystone) issueLocked(u *User, scoped bool, ttl time.Duration, methods []string) string {
	if ttl == 0 {
		ttl = k.TokenTTL
	}
	if ttl == 0 {
		ttl = time.Hour
	}
	b := make([]byte, 16)
	if _, err := rand.Read(b); err != nil {
		panic(err)
	}
	id := "gAAAAA" + hex.EncodeToString(b)
	now := time.Now().UTC()
	k.tokens[id] = &token{user: u, scoped: scoped, issuedAt: now, expiresAt: now.Add(ttl), methods: methods}
	return id
}

// validLocked returns the token id names if it exists and has not expired.
func (k *Keystone) validLocked(id string) *token {
	tok, ok := k.tokens[id]
	if !ok || !time.Now().Before(tok.expiresAt) {
		return nil
	}
	return tok
}

// drop answers as an unreachable Keystone: the connection is closed
// without an answer.
func drop(w http.ResponseWriter) {
	if hj, ok := w.(http.Hijacker); ok {
		if conn, _, err := hj.Hijack(); err == nil {
			conn.Close()
			return
		}
	}
	http.Error(w, "down", http.StatusServiceUnavailable)
}

func (k *Keystone) serve(w http.ResponseWriter, r *http.Request) {
	k.mu.Lock()
	defer k.mu.Unlock()
	if k.down {
		drop(w)
		return
	}
	path := strings.TrimSuffix(r.URL.Path, "/")
	k.requests[r.Method+" "+path]++
	if held := k.held; held != nil && (len(k.holdPaths) == 0 || slices.Contains(k.holdPaths, r.Method+" "+path)) {
		k.mu.Unlock()
		select {
		case <-held:
		case <-r.Context().Done():
		}
		k.mu.Lock()
		if r.Context().Err() != nil {
			return // the client gave up: nobody reads an answer
		}
		if k.down {
			drop(w)
			return
		}
	}
	switch {
	case path == "" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusMultipleChoices, map[string]any{"versions": map[string]any{"values": []any{k.version()}}})
	case path == "/v3" && r.Method == http.MethodGet:
		writeJSON(w, http.StatusOK, map[string]any{"version": k.version()})
	case path == "/v3/auth/tokens" && r.Method == http.MethodPost:
		k.createToken(w, r)
	case path == "/v3/auth/tokens" && (r.Method == http.MethodGet || r.Method == http.MethodHead):
		k.validateToken(w, r)
	case k.serveAppCreds(w, r, path):
	default:
		keystoneError(w, http.StatusNotFound, "Not Found", "The resource could not be found.")
	}
}

func (k *Keystone) version() map[string]any {
	return map[string]any{
		"id": "v3.14", "status": "stable", "updated": "2020-04-07T00:00:00Z",
		"links":       []any{map[string]any{"rel": "self", "href": k.AuthURL + "/"}},
		"media-types": []any{map[string]any{"base": "application/json", "type": "application/vnd.openstack.identity-v3+json"}},
	}
}

type authRequest struct {
	Auth struct {
		Identity struct {
			Methods  []string `json:"methods"`
			Password struct {
				User struct {
					ID       string `json:"id"`
					Name     string `json:"name"`
					Password string `json:"password"`
					Domain   struct {
						ID   string `json:"id"`
						Name string `json:"name"`
					} `json:"domain"`
				} `json:"user"`
			} `json:"password"`
			Token struct {
				ID string `json:"id"`
			} `json:"token"`
		} `json:"identity"`
		Scope *struct {
			Project *struct {
				ID     string `json:"id"`
				Name   string `json:"name"`
				Domain struct {
					ID   string `json:"id"`
					Name string `json:"name"`
				} `json:"domain"`
			} `json:"project"`
		} `json:"scope"`
	} `json:"auth"`
}

func (k *Keystone) createToken(w http.ResponseWriter, r *http.Request) {
	var req authRequest
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		keystoneError(w, http.StatusBadRequest, "Bad Request", "Expecting to find auth in request body.")
		return
	}
	id := req.Auth.Identity
	var u *User
	switch {
	case slices.Contains(id.Methods, "password"):
		p := id.Password.User
		if p.ID == "" && !domainMatches(p.Domain.ID, p.Domain.Name) {
			break
		}
		for _, cand := range k.users {
			if (p.ID != "" && cand.ID == p.ID || p.ID == "" && cand.Name == p.Name) && cand.Password == p.Password {
				u = cand
			}
		}
	case slices.Contains(id.Methods, "token"):
		if tok := k.validLocked(id.Token.ID); tok != nil {
			u = tok.user
		}
	}
	if u == nil {
		keystoneError(w, http.StatusUnauthorized, "Unauthorized", "The request you have made requires authentication.")
		return
	}
	scoped := false
	if s := req.Auth.Scope; s != nil && s.Project != nil {
		p := s.Project
		if !(p.ID != "" && p.ID == u.ProjectID || p.ID == "" && p.Name == u.ProjectName && domainMatches(p.Domain.ID, p.Domain.Name)) {
			keystoneError(w, http.StatusUnauthorized, "Unauthorized", "The request you have made requires authentication.")
			return
		}
		scoped = true
	}
	tid := k.issueLocked(u, scoped, 0, id.Methods)
	w.Header().Set("X-Subject-Token", tid)
	writeJSON(w, http.StatusCreated, map[string]any{"token": k.body(k.tokens[tid], true)})
}

func (k *Keystone) validateToken(w http.ResponseWriter, r *http.Request) {
	caller := k.validLocked(r.Header.Get("X-Auth-Token"))
	if caller == nil {
		keystoneError(w, http.StatusUnauthorized, "Unauthorized", "The request you have made requires authentication.")
		return
	}
	subjectID := r.Header.Get("X-Subject-Token")
	subject := k.validLocked(subjectID)
	// identity:validate_token: the service role, an admin, or the token's
	// own user.
	roles := expand(caller.user.Roles)
	if !slices.Contains(roles, "service") && !slices.Contains(roles, "admin") && (subject == nil || subject.user != caller.user) {
		keystoneError(w, http.StatusForbidden, "Forbidden", "You are not authorized to perform the requested action: identity:validate_token.")
		return
	}
	if subject == nil {
		keystoneError(w, http.StatusNotFound, "Not Found", fmt.Sprintf("Could not find token: %s.", subjectID))
		return
	}
	w.Header().Set("X-Subject-Token", subjectID)
	_, nocatalog := r.URL.Query()["nocatalog"]
	writeJSON(w, http.StatusOK, map[string]any{"token": k.body(subject, !nocatalog)})
}

func (k *Keystone) body(t *token, catalog bool) map[string]any {
	domain := map[string]any{"id": DomainID, "name": DomainName}
	out := map[string]any{
		"methods":    t.methods,
		"audit_ids":  []string{"audit-" + t.user.ID},
		"issued_at":  t.issuedAt.Format("2006-01-02T15:04:05.000000Z"),
		"expires_at": t.expiresAt.Format("2006-01-02T15:04:05.000000Z"),
		"user":       map[string]any{"id": t.user.ID, "name": t.user.Name, "domain": domain, "password_expires_at": nil},
	}
	if !t.scoped {
		return out
	}
	roles := []any{}
	for _, r := range expand(t.user.Roles) {
		roles = append(roles, map[string]any{"id": "role-" + r, "name": r})
	}
	out["roles"] = roles
	out["is_domain"] = false
	out["project"] = map[string]any{"id": t.user.ProjectID, "name": t.user.ProjectName, "domain": domain}
	if catalog {
		entries := []any{k.catalogEntry(endpoint{"identity", "keystone", k.AuthURL})}
		for _, e := range k.endpoints {
			entries = append(entries, k.catalogEntry(e))
		}
		out["catalog"] = entries
	}
	return out
}

func (k *Keystone) catalogEntry(e endpoint) map[string]any {
	return map[string]any{
		"id": "svc-" + e.typ, "type": e.typ, "name": e.name,
		"endpoints": []any{map[string]any{
			"id": "ep-" + e.typ, "interface": "public", "region": Region, "region_id": Region, "url": e.url,
		}},
	}
}

// expand adds the implied roles, as Keystone does in token bodies.
func expand(roles []string) []string {
	var out []string
	var add func(string)
	add = func(r string) {
		if slices.Contains(out, r) {
			return
		}
		out = append(out, r)
		for _, i := range impliedRoles[r] {
			add(i)
		}
	}
	for _, r := range roles {
		add(r)
	}
	return out
}

func domainMatches(id, name string) bool {
	return id == DomainID || name == DomainName
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// keystoneError answers in Keystone's error format.
func keystoneError(w http.ResponseWriter, status int, title, msg string) {
	writeJSON(w, status, map[string]any{"error": map[string]any{"code": status, "title": title, "message": msg}})
}
