package restapi

import (
	"net/http"
	"testing"
)

// When keel's own service token stops being valid, keel re-authenticates
// its service user and validates the caller's token: the caller sees no
// error.
func TestKeystoneServiceTokenRenewed(t *testing.T) {
	a := newKeystoneAPI(t)
	first := a.ks.Issue(t, ksMember.Name, 0)
	if r := a.doToken(first, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("first: %d %s", r.status, r.body)
	}
	a.ks.RevokeUser("keel")
	second := a.ks.Issue(t, ksReader.Name, 0)
	if r := a.doToken(second, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("after the service token was revoked: %d %s", r.status, r.body)
	}
	if n := a.ks.Authentications(); n != 2 {
		t.Fatalf("the service user authenticated %d times, want 2", n)
	}
}

// A token without a project cannot act in keel: 403 in Magnum's format.
func TestKeystoneUnscopedToken(t *testing.T) {
	a := newKeystoneAPI(t)
	tok := a.ks.IssueUnscoped(t, ksAdmin.Name)
	a.expectNoCommit(func() {
		expectError(t, a.doToken(tok, "POST", "/v1/clustertemplates", templateBody("t", nil)),
			http.StatusForbidden, "A project-scoped token is required")
	})
}
