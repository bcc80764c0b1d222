package restapi

import (
	"net/http"
	"testing"
	"time"
)

// Tokens Keystone does not know (made up, revoked, expired) are 401, and
// commit nothing.
func TestKeystoneInvalidToken(t *testing.T) {
	a := newKeystoneAPI(t)
	a.expectNoCommit(func() {
		a.expectUnauthorized(a.doToken("not-a-token", "POST", "/v1/clustertemplates", templateBody("t", nil)))
	})
	a.expectUnauthorized(a.doToken("not-a-token", "GET", "/v1/clustertemplates", nil))

	revoked := a.ks.Issue(t, ksMember.Name, 0)
	a.ks.Revoke(revoked)
	a.expectUnauthorized(a.doToken(revoked, "GET", "/v1/clustertemplates", nil))

	expiring := a.ks.Issue(t, ksMember.Name, 300*time.Millisecond)
	if r := a.doToken(expiring, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("valid token: %d %s", r.status, r.body)
	}
	// keel's cache ends with the token: once expired, Keystone is asked
	// again and refuses it.
	time.Sleep(400 * time.Millisecond)
	before := a.ks.Validations()
	a.expectUnauthorized(a.doToken(expiring, "GET", "/v1/clustertemplates", nil))
	if a.ks.Validations() != before+1 {
		t.Fatalf("an expired token was not re-validated (%d → %d validations)", before, a.ks.Validations())
	}
}
