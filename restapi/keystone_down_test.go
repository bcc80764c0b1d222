package restapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openkeel/keel/restapi/auth"
)

// Keystone unreachable is a 503 in Magnum's format (not a 500, not a
// panic, not a 401 that would make clients drop a good token), whose body
// does not expose Keystone's address; keel recovers by itself when
// Keystone is back, and tokens it validated before keep working meanwhile.
func TestKeystoneDown(t *testing.T) {
	a := newKeystoneAPI(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)

	// Down before keel's service user could even authenticate.
	a.ks.SetDown(true)
	for i := 0; i < 2; i++ {
		r := a.doToken(tok, "GET", "/v1/clustertemplates", nil)
		expectError(t, r, http.StatusServiceUnavailable, "Authentication is unavailable.")
		if code := r.json(t)["errors"].([]any)[0].(map[string]any)["code"]; code != "server" {
			t.Fatalf("code %v, want server", code)
		}
		if strings.Contains(string(r.body), a.ks.URL) {
			t.Fatalf("the 503 exposes Keystone's URL: %s", r.body)
		}
	}

	a.ks.SetDown(false)
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("after Keystone came back: %d %s", r.status, r.body)
	}

	// Down again: the validated token is served from the cache, a new one
	// cannot be validated.
	a.ks.SetDown(true)
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("cached token while Keystone is down: %d %s", r.status, r.body)
	}
	a.ks.SetDown(false)
	other := a.ks.Issue(t, ksReader.Name, 0)
	a.ks.SetDown(true)
	a.expectNoCommit(func() {
		expectError(t, a.doToken(other, "POST", "/v1/clustertemplates", templateBody("t", nil)),
			http.StatusServiceUnavailable, "Authentication is unavailable.")
	})
	a.ks.SetDown(false)
	expectError(t, a.doToken(other, "POST", "/v1/clustertemplates", templateBody("t", nil)),
		http.StatusForbidden, "clustertemplate:create")
}

// A service user Keystone refuses (wrong password) is a 503 too: the
// caller's token is not at fault.
func TestKeystoneServiceUserRefused(t *testing.T) {
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.Service.Password = "wrong" })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	expectError(t, a.doToken(tok, "GET", "/v1/clustertemplates", nil), http.StatusServiceUnavailable, "Authentication is unavailable.")
}
