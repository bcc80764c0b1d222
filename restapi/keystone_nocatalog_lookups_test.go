package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// Validating without the caller's catalog (Keystone.NoCatalog) leaves the
// lookups to keel's service user, on the caller's behalf: it does not see
// alice's private image, and every lookup is its own.
func TestKeystoneNoCatalogLookupsAsServiceUser(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	a.auth.NoCatalog = true
	tok := a.ks.Issue(t, ksMember.Name, 0)
	a.expectNoCommit(func() {
		expectError(t, a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1")), http.StatusBadRequest, "Image p1-image could not be found.")
	})
	seen := a.services.requests()
	if len(seen) == 0 {
		t.Fatal("no lookup reached OpenStack")
	}
	for _, s := range seen {
		if !strings.HasPrefix(s, "keel ") {
			t.Errorf("lookup %q was not keel's service user's", s)
		}
	}
}
