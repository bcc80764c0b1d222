package restapi

import (
	"net/http"
	"testing"

	"github.com/gophercloud/gophercloud/v2"

	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/testing/keystonetest"
	"github.com/openkeel/keel/restapi/auth"
)

// Keystone over HTTPS with a private CA: with the CA bundle (as keel serve
// --os-cacert builds its client) tokens validate; without it, TLS fails
// and the caller gets the 503 of an unreachable Keystone, not a 401.
func TestKeystoneCACert(t *testing.T) {
	ks := keystonetest.NewTLS(t)
	ks.AddUser(ksMember)
	hc, err := openstack.HTTPClientWithCA(ks.CACertFile(t))
	if err != nil {
		t.Fatal(err)
	}
	tok := ks.Issue(t, ksMember.Name, 0)

	withCA := newTLSKeystoneAPI(t, ks, hc)
	if r := withCA.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("with the CA bundle: %d %s", r.status, r.body)
	}

	withoutCA := newTLSKeystoneAPI(t, ks, nil)
	before := ks.Validations()
	expectError(t, withoutCA.doToken(tok, "GET", "/v1/clustertemplates", nil),
		http.StatusServiceUnavailable, "Authentication is unavailable.")
	if n := ks.Validations(); n != before {
		t.Fatalf("Keystone answered %d validations over a TLS connection keel should not trust", n-before)
	}
}

// newTLSKeystoneAPI is newKeystoneAPI against the given Keystone, with hc
// as the HTTP client to it.
func newTLSKeystoneAPI(t *testing.T, ks *keystonetest.Keystone, hc *http.Client) *keystoneAPI {
	t.Helper()
	auth := &auth.Keystone{AuthURL: ks.AuthURL, HTTPClient: hc, Service: gophercloud.AuthOptions{
		Username: keystonetest.ServiceUser, Password: keystonetest.ServicePass, DomainName: keystonetest.DomainName,
		Scope: &gophercloud.AuthScope{ProjectName: keystonetest.ServiceProject, DomainName: keystonetest.DomainName},
	}}
	a := newTestAPI(t, func(c *Config) { c.Auth, c.AuthURL = auth, ks.AuthURL })
	return &keystoneAPI{testAPI: a, ks: ks, auth: auth}
}
