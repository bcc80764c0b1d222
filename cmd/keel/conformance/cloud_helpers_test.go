package conformance

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"sync"

	"github.com/openkeel/keel/internal/testing/novatest"
)

// The resources the suites' configuration names (tempest.conf, OS_*):
// keel resolves them at API time, so they exist in the fake services.
const (
	imageName      = "ubuntu-2204-kube-v1.33.1"
	imageID        = "6f4f3a3e-0d5c-4c2e-9a51-1b1d3c0c3a01"
	flavorID       = "m1.medium"
	flavorResizeID = "m1.large"
	extNetName     = "public"
	extNetID       = "a1f1c3b2-7e1d-4c1e-8b0b-2d5a7e7f0b01"
	keypairName    = "conformance-key"
	// A Fedora CoreOS image (os_distro fedora-coreos, the Heat driver's):
	// the side-by-side test's Heat-era template is made on Magnum's API,
	// which asks Glance for it.
	fcosImageName = "fedora-coreos-35"
	fcosImageID   = "c3d2b1a0-9f8e-4d7c-8b6a-5e4d3c2b1a09"
)

// fakeImages are the fake Glance's images: ID, name, os_distro.
var fakeImages = [][3]string{{imageID, imageName, "ubuntu"}, {fcosImageID, fcosImageName, "fedora-coreos"}}

// fakeCloud speaks the few calls of Nova, Glance, Neutron and Cinder that
// keel's API-time lookups and the suites make (flavors, keypairs, images,
// networks, subnets, volume types), answering from fixed resources. It
// asks Keystone whose a token is (as Nova does through keystonemiddleware):
// keypairs are per user (gophercloud's clusters name the admin's), server
// groups per project (keel makes a cluster's at create).
type fakeCloud struct {
	*httptest.Server
	// whoami returns who holds a valid token.
	whoami       func(token string) (novatest.Caller, error)
	serverGroups *novatest.ServerGroups
	mu           sync.Mutex
	users        map[string]novatest.Caller // token → caller
	keypairs     map[string]map[string]bool // user ID → keypair names
}

func newFakeCloud(whoami func(string) (novatest.Caller, error)) *fakeCloud {
	f := &fakeCloud{whoami: whoami, serverGroups: novatest.New(),
		users: map[string]novatest.Caller{}, keypairs: map[string]map[string]bool{}}
	f.Server = httptest.NewServer(http.HandlerFunc(f.serve))
	return f
}

// addKeypair gives user a keypair.
func (f *fakeCloud) addKeypair(user, name string) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.keypairs[user] == nil {
		f.keypairs[user] = map[string]bool{}
	}
	f.keypairs[user][name] = true
}

// caller is who holds the token, asked of Keystone once per token.
func (f *fakeCloud) caller(token string) (novatest.Caller, error) {
	f.mu.Lock()
	c, ok := f.users[token]
	f.mu.Unlock()
	if ok {
		return c, nil
	}
	c, err := f.whoami(token)
	if err != nil {
		return novatest.Caller{}, err
	}
	f.mu.Lock()
	f.users[token] = c
	f.mu.Unlock()
	return c, nil
}

func jsonAnswer(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

func (f *fakeCloud) flavor(id string) map[string]any {
	ram, vcpus := 4096, 2
	if id == flavorResizeID {
		ram, vcpus = 8192, 4
	}
	return map[string]any{"id": id, "name": id, "ram": ram, "vcpus": vcpus, "disk": 40,
		"OS-FLV-EXT-DATA:ephemeral": 0, "swap": "", "rxtx_factor": 1.0, "os-flavor-access:is_public": true,
		"links": []any{}}
}

func (f *fakeCloud) image(i [3]string) map[string]any {
	return map[string]any{"id": i[0], "name": i[1], "status": "active", "visibility": "public",
		"os_distro": i[2], "min_disk": 0, "container_format": "bare", "disk_format": "qcow2"}
}

// images answers Glance's image list and show.
func (f *fakeCloud) images(w http.ResponseWriter, p, name string) {
	images := []any{}
	for _, i := range fakeImages {
		switch {
		case p == "/image/v2/images/"+i[0]:
			jsonAnswer(w, http.StatusOK, f.image(i))
			return
		case p == "/image/v2/images" && (name == "" || name == i[1]):
			images = append(images, f.image(i))
		}
	}
	if p != "/image/v2/images" {
		notFound(w, "Image")
		return
	}
	jsonAnswer(w, http.StatusOK, map[string]any{"images": images})
}

func (f *fakeCloud) network() map[string]any {
	return map[string]any{"id": extNetID, "name": extNetName, "router:external": true, "shared": false,
		"status": "ACTIVE", "admin_state_up": true, "subnets": []string{}}
}

func (f *fakeCloud) keypair(user, name string) map[string]any {
	return map[string]any{"name": name, "user_id": user, "fingerprint": "00:11:22:33:44:55:66:77:88:99:aa:bb:cc:dd:ee:ff",
		"public_key": "ssh-ed25519 AAAAC3NzaC1lZDI1NTE5AAAAIConformanceFakeKeyOnly conformance"}
}

func notFound(w http.ResponseWriter, what string) {
	jsonAnswer(w, http.StatusNotFound, map[string]any{"itemNotFound": map[string]any{"code": 404, "message": what + " could not be found."}})
}

func (f *fakeCloud) serve(w http.ResponseWriter, r *http.Request) {
	who, err := f.caller(r.Header.Get("X-Auth-Token"))
	if err != nil {
		jsonAnswer(w, http.StatusUnauthorized, map[string]any{"error": map[string]any{"code": 401, "message": "The request you have made requires authentication."}})
		return
	}
	// neutronclient joins its endpoint (the catalog's, ending in /) and
	// /v2.0/...: an empty path segment, which Neutron's router ignores.
	p, q := path.Clean(r.URL.Path), r.URL.Query()
	if strings.HasPrefix(p, "/compute/v2.1/") && f.serverGroups.Serve(w, r, strings.TrimPrefix(p, "/compute/v2.1"), who) {
		return
	}
	// An admin (keel's service user) may name another user's keypairs.
	owner := who.UserID
	if u := q.Get("user_id"); u != "" {
		owner = u
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	switch {
	// Version discovery of the unversioned endpoints (Glance: 300).
	case p == "/image/" || p == "/image":
		jsonAnswer(w, http.StatusMultipleChoices, map[string]any{"versions": []any{map[string]any{
			"id": "v2.16", "status": "CURRENT", "links": []any{map[string]any{"rel": "self", "href": f.URL + "/image/v2/"}}}}})
	case p == "/network/" || p == "/network":
		jsonAnswer(w, http.StatusOK, map[string]any{"versions": []any{map[string]any{
			"id": "v2.0", "status": "CURRENT", "links": []any{map[string]any{"rel": "self", "href": f.URL + "/network/v2.0/"}}}}})

	case p == "/compute/v2.1/flavors/detail" || p == "/compute/v2.1/flavors":
		jsonAnswer(w, http.StatusOK, map[string]any{"flavors": []any{f.flavor(flavorID), f.flavor(flavorResizeID)}})
	case strings.HasPrefix(p, "/compute/v2.1/flavors/"):
		id := strings.TrimPrefix(p, "/compute/v2.1/flavors/")
		if id != flavorID && id != flavorResizeID {
			notFound(w, "Flavor "+id)
			return
		}
		jsonAnswer(w, http.StatusOK, map[string]any{"flavor": f.flavor(id)})
	case strings.HasPrefix(p, "/compute/v2.1/os-keypairs/"):
		name := strings.TrimPrefix(p, "/compute/v2.1/os-keypairs/")
		if !f.keypairs[owner][name] {
			notFound(w, "Keypair "+name)
			return
		}
		jsonAnswer(w, http.StatusOK, map[string]any{"keypair": f.keypair(owner, name)})

	// glanceclient (Magnum's) builds its image model from Glance's
	// schema: a small one, with os_distro among the properties.
	case p == "/image/v2/schemas/image":
		jsonAnswer(w, http.StatusOK, map[string]any{"name": "image", "additionalProperties": map[string]any{"type": "string"},
			"properties": map[string]any{"id": map[string]any{"type": "string"}, "name": map[string]any{"type": []string{"null", "string"}},
				"os_distro": map[string]any{"type": "string"}}, "links": []any{}})
	case strings.HasPrefix(p, "/image/v2/images"):
		f.images(w, p, q.Get("name"))

	case p == "/network/v2.0/networks":
		nets := []any{}
		if n := q.Get("name"); (n == "" || n == extNetName) && q.Get("router:external") != "false" {
			nets = append(nets, f.network())
		}
		jsonAnswer(w, http.StatusOK, map[string]any{"networks": nets})
	case p == "/network/v2.0/networks/"+extNetID:
		jsonAnswer(w, http.StatusOK, map[string]any{"network": f.network()})
	case p == "/network/v2.0/subnets":
		jsonAnswer(w, http.StatusOK, map[string]any{"subnets": []any{}})
	case strings.HasPrefix(p, "/network/"):
		notFound(w, "Network")

	case strings.HasPrefix(p, "/volume/v3/") && strings.HasSuffix(p, "/types"):
		jsonAnswer(w, http.StatusOK, map[string]any{"volume_types": []any{map[string]any{"id": "b7c9d2e0-1f3a-4b5c-8d6e-0a1b2c3d4e5f", "name": "standard"}}})
	default:
		notFound(w, "Resource")
	}
}
