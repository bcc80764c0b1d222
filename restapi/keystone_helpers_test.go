package restapi

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/openkeel/keel/internal/testing/keystonetest"
	"github.com/openkeel/keel/restapi/auth"
)

// Keystone users of the restapi tests: Keystone gives them their implied
// roles (admin ⇒ member ⇒ reader).
var (
	ksMember = keystonetest.User{ID: "alice-id", Name: "alice", Password: "alice-pw", ProjectID: "p1", ProjectName: "one", Roles: []string{"member"}}
	ksReader = keystonetest.User{ID: "rita-id", Name: "rita", Password: "rita-pw", ProjectID: "p1", ProjectName: "one", Roles: []string{"reader"}}
	ksAdmin  = keystonetest.User{ID: "root-id", Name: "root", Password: "root-pw", ProjectID: "admin-project", ProjectName: "admin", Roles: []string{"admin"}}
)

// keystoneAPI is a testAPI authenticating with restapi.Keystone against a
// fake Keystone.
type keystoneAPI struct {
	*testAPI
	ks   *keystonetest.Keystone
	auth *auth.Keystone
}

func newKeystoneAPI(t *testing.T, mutate ...func(*auth.Keystone)) *keystoneAPI {
	t.Helper()
	ks := keystonetest.New(t)
	for _, u := range []keystonetest.User{ksMember, ksReader, ksAdmin} {
		ks.AddUser(u)
	}
	auth := &auth.Keystone{AuthURL: ks.AuthURL, Service: gophercloud.AuthOptions{
		Username: keystonetest.ServiceUser, Password: keystonetest.ServicePass, DomainName: keystonetest.DomainName,
		Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName},
	}}
	for _, m := range mutate {
		m(auth)
	}
	a := newTestAPI(t, func(c *Config) { c.Auth, c.AuthURL = auth, ks.AuthURL })
	return &keystoneAPI{testAPI: a, ks: ks, auth: auth}
}

// doToken sends a request with X-Auth-Token (none when token is "") and
// NoAuth's headers claiming another identity, which Keystone mode must
// ignore.
func (a *keystoneAPI) doToken(token, method, path string, body any) response {
	a.t.Helper()
	return a.doTokenMV(token, "", method, path, body)
}

// doTokenMV is doToken at container-infra microversion mv ("" for none).
func (a *keystoneAPI) doTokenMV(token, mv, method, path string, body any) response {
	a.t.Helper()
	var rd io.Reader
	if body != nil {
		data, err := json.Marshal(body)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.srv.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	if mv != "" {
		req.Header.Set("OpenStack-API-Version", "container-infra "+mv)
	}
	if token != "" {
		req.Header.Set("X-Auth-Token", token)
	}
	req.Header.Set("X-Project-Id", "spoofed-project")
	req.Header.Set("X-User-Id", "spoofed-user")
	req.Header.Set("X-Roles", "admin,member,reader")
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

// templateBody is a minimal valid template create body.
func templateBody(name string, extra map[string]any) map[string]any {
	b := map[string]any{"name": name, "coe": "kubernetes", "image_id": "ubuntu-2204-kube",
		"external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
	for k, v := range extra {
		b[k] = v
	}
	return b
}

// expectUnauthorized checks keystonemiddleware's 401: its own body format
// and the WWW-Authenticate challenge naming Keystone.
func (a *keystoneAPI) expectUnauthorized(r response) {
	a.t.Helper()
	if r.status != http.StatusUnauthorized {
		a.t.Fatalf("status %d, want 401: %s", r.status, r.body)
	}
	var body struct {
		Error struct {
			Code    int    `json:"code"`
			Title   string `json:"title"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil {
		a.t.Fatalf("401 body is not keystonemiddleware's: %v: %s", err, r.body)
	}
	if body.Error.Code != 401 || body.Error.Title != "Unauthorized" || !strings.Contains(body.Error.Message, "requires authentication") {
		a.t.Fatalf("401 body %s", r.body)
	}
	if got, want := r.header.Get("WWW-Authenticate"), `Keystone uri="`+a.ks.AuthURL+`"`; got != want {
		a.t.Fatalf("WWW-Authenticate %q, want %q", got, want)
	}
	if !strings.HasPrefix(r.header.Get("Content-Type"), "application/json") {
		a.t.Fatalf("Content-Type %q", r.header.Get("Content-Type"))
	}
}
