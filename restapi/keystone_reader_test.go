package restapi

import (
	"net/http"
	"testing"
)

// A reader's token reads its project but cannot create (403 from the
// policy, no commit), even when it claims admin in X-Roles.
func TestKeystoneReaderCannotCreate(t *testing.T) {
	a := newKeystoneAPI(t)
	tok := a.ks.Issue(t, ksReader.Name, 0)
	a.expectNoCommit(func() {
		expectError(t, a.doToken(tok, "POST", "/v1/clustertemplates", templateBody("t1", nil)), http.StatusForbidden,
			"Policy doesn't allow clustertemplate:create to be performed.")
	})
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("reader list: %d %s", r.status, r.body)
	}
	expectError(t, a.doToken(tok, "GET", "/v1/mservices", nil), http.StatusForbidden, "magnum-service:get_all")
}
