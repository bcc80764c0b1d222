package restapi

import (
	"net/http"
	"testing"
)

// A rotation whose commit is refused (here: the cluster was created before
// keel had an age identity, so it has no secrets to store a credential
// in) answers 400 naming why, commits nothing, and deletes the credential
// it made in Keystone.
func TestKeystoneRotateRefusedDeletesNewCredential(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	alice, bob := a.ks.Issue(t, ksMember.Name, 0), a.ks.Issue(t, ksBob.Name, 0)
	a.createP1TemplateAndCluster(t, alice, "c1")
	a.withKeyring(t)
	a.expectNoCommit(func() {
		expectError(t, a.doTokenMV(bob, "1.12", "PATCH", "/v1/credentials/c1", nil), http.StatusBadRequest, "it has no secrets in keel's repository")
	})
	if acs := a.ks.ApplicationCredentials(ksBob.ID); len(acs) != 0 {
		t.Errorf("Keystone keeps %d unused credentials of bob", len(acs))
	}
}
