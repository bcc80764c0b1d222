package openstack

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/openkeel/keel/internal/novatest"
)

// fakeCloud speaks enough of Keystone v3, Nova, Glance, Neutron and Cinder
// for gophercloud: a token with a service catalog, then GETs of single
// resources and filtered lists, answered from the maps below. A fake, for
// what the real services cannot be made to do on demand (ambiguous names,
// 5xx and 401 answers, decoy regions and interfaces in the catalog, a count
// of requests); the ordinary lookups run against the real services in the
// TestRealOpenStack tests (docs/openstack.md).
type fakeCloud struct {
	*httptest.Server
	mu       sync.Mutex
	requests []string // "GET /compute/v2.1/flavors/x?..."
	tokens   []string // the X-Auth-Token of each request

	// users are the callers' tokens the services accept, besides the
	// service user's fake-token; serviceNotAdmin makes Nova refuse the
	// service user another user's keypair (user_id), as it does a
	// non-admin.
	users           map[string]fakeCaller
	serviceNotAdmin bool

	flavors  []map[string]any
	images   []map[string]any
	networks []map[string]any
	subnets  []map[string]any
	keypairs map[string]map[string]bool // user → keypair names ("" = the service user)
	vtypes   []map[string]any
	groups   *novatest.ServerGroups
}

const fakeProject = "svc-project"

// fakeCaller is whom a token stands for.
type fakeCaller struct{ user, project string }

// serviceCaller is keel's service user, whose token is fake-token.
var serviceCaller = fakeCaller{"keel", fakeProject}

// visible reports whether a resource is the caller's to see: private
// images are their owner project's, flavors with "_projects" (Nova's
// flavor access) those projects'.
func (c fakeCaller) visible(it map[string]any) bool {
	if it["visibility"] == "private" && it["owner"] != c.project {
		return false
	}
	if ps, ok := it["_projects"].([]string); ok {
		for _, p := range ps {
			if p == c.project {
				return true
			}
		}
		return false
	}
	return true
}

func visibleTo(c fakeCaller, items []map[string]any) []map[string]any {
	out := []map[string]any{}
	for _, it := range items {
		if c.visible(it) {
			out = append(out, it)
		}
	}
	return out
}

func newFakeCloud(t *testing.T) *fakeCloud {
	f := &fakeCloud{keypairs: map[string]map[string]bool{}, users: map[string]fakeCaller{}, groups: novatest.New()}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	t.Cleanup(f.Close)
	return f
}

func (f *fakeCloud) options() Options {
	return Options{Region: "RegionOne", Auth: gophercloud.AuthOptions{
		IdentityEndpoint: f.URL + "/identity/v3/", Username: "keel", Password: "secret", DomainName: "Default",
		Scope: &gophercloud.AuthScope{ProjectName: "service", DomainName: "Default"},
	}}
}

// auths returns the X-Auth-Token of each request so far.
func (f *fakeCloud) auths() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.tokens...)
}

// addUser makes the services accept token as user of project.
func (f *fakeCloud) addUser(token, user, project string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.users[token] = fakeCaller{user, project}
}

// revoke makes the services refuse token (401), as after its expiry.
func (f *fakeCloud) revoke(token string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	delete(f.users, token)
}

func (f *fakeCloud) log() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.requests...)
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func notFound(w http.ResponseWriter) {
	writeJSON(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": "not found"}})
}

// filter keeps the items whose fields equal every query parameter given
// among keys.
func filter(items []map[string]any, r *http.Request, keys ...string) []map[string]any {
	out := []map[string]any{}
next:
	for _, it := range items {
		for _, k := range keys {
			if v := r.URL.Query().Get(k); v != "" {
				if s, ok := it[k].(string); ok && s != v {
					continue next
				}
				if b, ok := it[k].(bool); ok && (v == "true") != b {
					continue next
				}
			}
		}
		out = append(out, it)
	}
	return out
}

func byID(items []map[string]any, id string) map[string]any {
	for _, it := range items {
		if it["id"] == id {
			return it
		}
	}
	return nil
}

func (f *fakeCloud) serve(w http.ResponseWriter, r *http.Request) {
	f.mu.Lock()
	f.requests = append(f.requests, r.Method+" "+r.URL.RequestURI())
	f.tokens = append(f.tokens, r.Header.Get("X-Auth-Token"))
	caller, isUser := f.users[r.Header.Get("X-Auth-Token")]
	f.mu.Unlock()
	if r.Header.Get("X-Auth-Token") == "fake-token" {
		caller = serviceCaller
	}
	// /user/... is where the callers' catalog (client_user_token_test.go)
	// puts the services: the same services under other URLs.
	p := strings.TrimPrefix(r.URL.Path, "/user")
	base := f.URL
	switch {
	case r.Method == http.MethodPost && p == "/identity/v3/auth/tokens":
		ep := func(typ, url string) map[string]any {
			return map[string]any{"type": typ, "name": typ, "endpoints": []map[string]any{
				{"interface": "public", "region": "RegionOne", "region_id": "RegionOne", "url": url},
			}}
		}
		w.Header().Set("X-Subject-Token", "fake-token")
		writeJSON(w, http.StatusCreated, map[string]any{"token": map[string]any{
			"expires_at": "2999-01-01T00:00:00.000000Z",
			"project":    map[string]any{"id": fakeProject, "name": "service", "domain": map[string]any{"id": "default", "name": "Default"}},
			"user":       map[string]any{"id": "keel", "name": "keel", "domain": map[string]any{"id": "default", "name": "Default"}},
			"catalog": []map[string]any{
				ep("identity", base+"/identity/v3/"),
				ep("compute", base+"/compute/v2.1/"),
				ep("image", base+"/image/"),
				ep("network", base+"/network/"),
				ep("volumev3", base+"/volume/v3/"+fakeProject+"/"),
			},
		}})
	case r.Header.Get("X-Auth-Token") != "fake-token" && !isUser:
		writeJSON(w, http.StatusUnauthorized, map[string]any{"error": "no token"})
	case strings.HasPrefix(p, "/compute/v2.1/os-server-groups"):
		// Keel's service user is an admin unless serviceNotAdmin.
		f.groups.Serve(w, r, strings.TrimPrefix(p, "/compute/v2.1"),
			novatest.Caller{ProjectID: caller.project, UserID: caller.user, Admin: !isUser && !f.serviceNotAdmin})
	case r.Method != http.MethodGet:
		writeJSON(w, http.StatusMethodNotAllowed, nil)

	// Version discovery of the unversioned catalog endpoints, as Glance
	// (300 Multiple Choices) and Neutron answer it.
	case p == "/image/":
		writeJSON(w, http.StatusMultipleChoices, map[string]any{"versions": []map[string]any{
			{"id": "v2.16", "status": "CURRENT", "links": []map[string]any{{"rel": "self", "href": base + "/image/v2/"}}},
		}})
	case p == "/network/":
		writeJSON(w, 200, map[string]any{"versions": []map[string]any{
			{"id": "v2.0", "status": "CURRENT", "links": []map[string]any{{"rel": "self", "href": base + "/network/v2.0/"}}},
		}})

	case p == "/compute/v2.1/flavors/detail":
		writeJSON(w, 200, map[string]any{"flavors": visibleTo(caller, f.flavors)})
	case strings.HasPrefix(p, "/compute/v2.1/flavors/"):
		if fl := byID(visibleTo(caller, f.flavors), strings.TrimPrefix(p, "/compute/v2.1/flavors/")); fl != nil {
			writeJSON(w, 200, map[string]any{"flavor": fl})
			return
		}
		notFound(w)
	case strings.HasPrefix(p, "/compute/v2.1/os-keypairs/"):
		name := strings.TrimPrefix(p, "/compute/v2.1/os-keypairs/")
		user := r.URL.Query().Get("user_id")
		if user != "" && r.Header.Get("X-OpenStack-Nova-API-Version") < "2.10" {
			writeJSON(w, http.StatusBadRequest, map[string]any{"badRequest": map[string]any{"message": "user_id needs 2.10"}})
			return
		}
		// Another user's keypair is for admins only (Nova's policy).
		if user != "" && user != caller.user && (isUser || f.serviceNotAdmin) {
			writeJSON(w, http.StatusForbidden, map[string]any{"forbidden": map[string]any{"code": 403, "message": "Policy doesn't allow os_compute_api:os-keypairs:show to be performed."}})
			return
		}
		if isUser && user == "" {
			user = caller.user // a user's own keypairs
		}
		if f.keypairs[user][name] {
			writeJSON(w, 200, map[string]any{"keypair": map[string]any{"name": name, "user_id": user, "public_key": "ssh-ed25519 AAAA"}})
			return
		}
		notFound(w)

	case p == "/image/v2/images":
		writeJSON(w, 200, map[string]any{"images": filter(visibleTo(caller, f.images), r, "name")})
	case strings.HasPrefix(p, "/image/v2/images/"):
		if im := byID(visibleTo(caller, f.images), strings.TrimPrefix(p, "/image/v2/images/")); im != nil {
			writeJSON(w, 200, im)
			return
		}
		notFound(w)

	case p == "/network/v2.0/networks":
		writeJSON(w, 200, map[string]any{"networks": filter(f.networks, r, "name", "router:external")})
	case strings.HasPrefix(p, "/network/v2.0/networks/"):
		if n := byID(f.networks, strings.TrimPrefix(p, "/network/v2.0/networks/")); n != nil {
			writeJSON(w, 200, map[string]any{"network": n})
			return
		}
		notFound(w)
	case p == "/network/v2.0/subnets":
		writeJSON(w, 200, map[string]any{"subnets": filter(f.subnets, r, "name", "network_id")})
	case strings.HasPrefix(p, "/network/v2.0/subnets/"):
		if s := byID(f.subnets, strings.TrimPrefix(p, "/network/v2.0/subnets/")); s != nil {
			writeJSON(w, 200, map[string]any{"subnet": s})
			return
		}
		notFound(w)

	case p == "/volume/v3/"+fakeProject+"/types":
		writeJSON(w, 200, map[string]any{"volume_types": f.vtypes})
	case strings.HasPrefix(p, "/volume/v3/"+fakeProject+"/types/"):
		if vt := byID(f.vtypes, strings.TrimPrefix(p, "/volume/v3/"+fakeProject+"/types/")); vt != nil {
			writeJSON(w, 200, map[string]any{"volume_type": vt})
			return
		}
		notFound(w)
	default:
		notFound(w)
	}
}
