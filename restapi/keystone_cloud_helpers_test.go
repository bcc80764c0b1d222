package restapi

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/openkeel/keel/internal/keystonetest"
	"github.com/openkeel/keel/internal/novatest"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/restapi/auth"
)

// ksBob is a second member of alice's project, with a keypair of his own.
var ksBob = keystonetest.User{ID: "bob-id", Name: "bob", Password: "bob-pw", ProjectID: "p1", ProjectName: "one", Roles: []string{"member"}}

const p1ImageID = "2a7e0c3d-1111-4b6a-9c55-0d1e2f3a4b5c"

// userServices is a fake Nova, Glance, Neutron and Cinder that know who
// asks from the X-Auth-Token (through the fake Keystone) and answer as
// OpenStack does a non-admin: a user's own keypairs only (another user's,
// by user_id, is Nova's 403), private images to their project, flavors
// with project access to those projects. Keel's service user (role
// service, not admin) sees none of alice's. A fake, kept for what the real
// services cannot be made to do on demand (refuse a token Keystone had
// validated, count who asked what); the ordinary lookups, server groups
// and credentials are proven against the real ones by the
// TestRealOpenStack tests (real_openstack_*_test.go, docs/openstack.md).
type userServices struct {
	*httptest.Server
	ks *keystonetest.Keystone
	// groups is Nova's os-server-groups.
	groups *novatest.ServerGroups

	mu   sync.Mutex
	seen []string // "user METHOD /path?query"
}

func newUserServices(t *testing.T, ks *keystonetest.Keystone) *userServices {
	s := &userServices{ks: ks, groups: novatest.New()}
	s.Server = httptest.NewServer(http.HandlerFunc(s.serve))
	t.Cleanup(s.Close)
	ks.AddEndpoint("compute", "nova", s.URL+"/compute/v2.1/")
	ks.AddEndpoint("image", "glance", s.URL+"/image/")
	ks.AddEndpoint("network", "neutron", s.URL+"/network/")
	ks.AddEndpoint("volumev3", "cinder", s.URL+"/volume/v3/")
	return s
}

// requests returns who asked what, in order.
func (s *userServices) requests() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return append([]string(nil), s.seen...)
}

func (s *userServices) serve(w http.ResponseWriter, r *http.Request) {
	u := s.ks.TokenUser(r.Header.Get("X-Auth-Token"))
	who := "-"
	if u != nil {
		who = u.Name
	}
	s.mu.Lock()
	s.seen = append(s.seen, who+" "+r.Method+" "+r.URL.RequestURI())
	s.mu.Unlock()
	reply := func(status int, v any) {
		w.Header().Set("Content-Type", "application/json")
		w.WriteHeader(status)
		_ = json.NewEncoder(w).Encode(v)
	}
	if u == nil {
		reply(http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication."}})
		return
	}
	admin := false
	for _, role := range u.Roles {
		admin = admin || role == "admin"
	}
	flavors := []map[string]any{{"id": "3", "name": "m1.medium", "vcpus": 2, "ram": 4096, "disk": 40}}
	if u.ProjectID == "p1" || admin {
		// m1.p1 is private, with access for p1 (Nova's flavor access).
		flavors = append(flavors, map[string]any{"id": "p1-flavor-id", "name": "m1.p1", "vcpus": 4, "ram": 8192, "disk": 20, "os-flavor-access:is_public": false})
	}
	images := []map[string]any{}
	if u.ProjectID == "p1" || admin {
		images = append(images, map[string]any{"id": p1ImageID, "name": "p1-image", "visibility": "private", "owner": "p1", "os_distro": "ubuntu", "status": "active"})
	}
	keypairs := map[string][]string{ksMember.ID: {"alice-key"}, ksBob.ID: {"bob-key"}}
	notFound := func() {
		reply(http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": "not found"}})
	}
	named := func(items []map[string]any, key, v string) []map[string]any {
		out := []map[string]any{}
		for _, it := range items {
			if v == "" || it[key] == v {
				out = append(out, it)
			}
		}
		return out
	}
	p := r.URL.Path
	q := r.URL.Query()
	switch {
	case strings.HasPrefix(p, "/compute/v2.1/os-server-groups"):
		s.groups.Serve(w, r, strings.TrimPrefix(p, "/compute/v2.1"), novatest.Caller{ProjectID: u.ProjectID, UserID: u.ID, Admin: admin})
	// Version discovery of the unversioned endpoints (gophercloud's).
	case p == "/image/":
		reply(http.StatusMultipleChoices, map[string]any{"versions": []map[string]any{
			{"id": "v2.16", "status": "CURRENT", "links": []map[string]any{{"rel": "self", "href": s.URL + "/image/v2/"}}}}})
	case p == "/network/":
		reply(200, map[string]any{"versions": []map[string]any{
			{"id": "v2.0", "status": "CURRENT", "links": []map[string]any{{"rel": "self", "href": s.URL + "/network/v2.0/"}}}}})
	case p == "/compute/v2.1/flavors/detail":
		reply(200, map[string]any{"flavors": flavors})
	case strings.HasPrefix(p, "/compute/v2.1/flavors/"):
		if m := named(flavors, "id", strings.TrimPrefix(p, "/compute/v2.1/flavors/")); len(m) == 1 {
			reply(200, map[string]any{"flavor": m[0]})
			return
		}
		notFound()
	case strings.HasPrefix(p, "/compute/v2.1/os-keypairs/"):
		owner := u.ID
		if id := q.Get("user_id"); id != "" && id != u.ID {
			if !admin {
				reply(http.StatusForbidden, map[string]any{"forbidden": map[string]any{"code": 403, "message": "Policy doesn't allow os_compute_api:os-keypairs:show to be performed."}})
				return
			}
			owner = id
		}
		name := strings.TrimPrefix(p, "/compute/v2.1/os-keypairs/")
		for _, k := range keypairs[owner] {
			if k == name {
				reply(200, map[string]any{"keypair": map[string]any{"name": name, "user_id": owner, "public_key": "ssh-ed25519 AAAA"}})
				return
			}
		}
		notFound()
	case p == "/image/v2/images":
		reply(200, map[string]any{"images": named(images, "name", q.Get("name"))})
	case strings.HasPrefix(p, "/image/v2/images/"):
		if m := named(images, "id", strings.TrimPrefix(p, "/image/v2/images/")); len(m) == 1 {
			reply(200, m[0])
			return
		}
		notFound()
	case p == "/network/v2.0/networks":
		nets := []map[string]any{{"id": "5e0c7d7a-aaaa-4f0e-8c1e-0b9a8f7e6d51", "name": "public", "router:external": true, "shared": true, "project_id": "admin-project"}}
		reply(200, map[string]any{"networks": named(nets, "name", q.Get("name"))})
	default:
		notFound()
	}
}

// syncBuffer is a log sink written from several goroutines.
type syncBuffer struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.mu.Lock()
	defer b.mu.Unlock()
	return b.buf.String()
}

// keystoneCloudAPI is keel under --auth keystone --openstack-lookups real:
// a fake Keystone, the fake services above in its catalog, and the real
// openstack.Client with keel's service user. Logs (debug level) go to log.
type keystoneCloudAPI struct {
	*keystoneAPI
	services *userServices
	log      *syncBuffer
}

func newKeystoneCloudAPI(t *testing.T) *keystoneCloudAPI {
	t.Helper()
	ks := keystonetest.New(t)
	for _, u := range []keystonetest.User{ksMember, ksBob, ksReader, ksAdmin} {
		ks.AddUser(u)
	}
	services := newUserServices(t, ks)
	service := gophercloud.AuthOptions{
		Username: keystonetest.ServiceUser, Password: keystonetest.ServicePass, DomainName: keystonetest.DomainName,
		Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName},
	}
	auth := &auth.Keystone{AuthURL: ks.AuthURL, Service: service}
	lookupAuth := service
	lookupAuth.IdentityEndpoint = ks.AuthURL
	cloud := openstack.New(openstack.Options{Auth: lookupAuth, Region: keystonetest.Region})
	log := &syncBuffer{}
	a := newTestAPI(t, func(c *Config) {
		c.Auth, c.AuthURL, c.Cloud = auth, ks.AuthURL, cloud
		c.Log = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
	})
	return &keystoneCloudAPI{keystoneAPI: &keystoneAPI{testAPI: a, ks: ks, auth: auth}, services: services, log: log}
}

// p1Template is a template whose image and flavor only p1's users see.
func p1Template(name string) map[string]any {
	return map[string]any{"name": name, "coe": "kubernetes", "image_id": "p1-image", "flavor_id": "m1.p1",
		"master_flavor_id": "m1.p1", "external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
}
