package restapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/openkeel/keel/restapi/auth"
)

// A Keystone that accepts connections but never answers costs a request
// Keystone.Timeout, not the client's patience: a 503 in Magnum's format
// and no commit, whether it hangs on keel's service user or on the
// token's validation. Well under the 10 s default, so the bound is the
// configured one.
func TestKeystoneTimeout(t *testing.T) {
	const timeout = 300 * time.Millisecond
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.Timeout = timeout })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	unavailable := func(token, what string) {
		t.Helper()
		start := time.Now()
		a.expectNoCommit(func() {
			expectError(t, a.doToken(token, "POST", "/v1/clustertemplates", templateBody("t", nil)),
				http.StatusServiceUnavailable, "Authentication is unavailable.")
		})
		if took := time.Since(start); took > 5*time.Second {
			t.Fatalf("%s: the 503 took %s with a %s timeout", what, took, timeout)
		}
	}

	a.ks.Hold() // every request, keel's service user authentication first
	unavailable(tok, "hanging before the service user authenticated")
	if a.ks.Authentications() == 0 {
		t.Fatal("keel did not even try to authenticate its service user")
	}
	a.ks.Release()
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("after Keystone answered again: %d %s", r.status, r.body)
	}

	a.ks.Hold("GET /v3/auth/tokens")
	other := a.ks.Issue(t, ksReader.Name, 0)
	unavailable(other, "hanging on a validation")
	// The token validated before is still served from the cache.
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("cached token while Keystone hangs: %d %s", r.status, r.body)
	}
}
