package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// A token Keystone validated (and keel cached) that the services refuse
// when a lookup presents it (revoked since): Magnum's AuthorizationFailure
// (403), nothing committed, no retry as keel's service user; the cached
// validation is dropped, so the next request with the token is a 401.
func TestKeystoneLookupTokenRefused(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("list: %d %s", r.status, r.body)
	}
	a.ks.Revoke(tok) // keel still holds the validation in its cache

	a.expectNoCommit(func() {
		expectError(t, a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1")), http.StatusForbidden,
			"glance connection failed. The image p1-image could not be looked up: glance refused the request's token (HTTP 401); it has expired or been revoked. Authenticate again.")
	})
	for _, s := range a.services.requests() {
		if !strings.HasPrefix(s, "- ") {
			t.Errorf("lookup %q was answered to a valid token: keel retried with another one", s)
		}
	}
	a.expectUnauthorized(a.doToken(tok, "GET", "/v1/clustertemplates", nil))
}
