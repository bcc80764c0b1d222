package restapi

import (
	"net/http"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/keystonetest"
)

// A token whose project id keel cannot store is a 403 naming the id, and
// nothing is committed. Keystone's own ids always pass; the fake Keystone
// stands in for an identity backend that makes others, which a real
// Keystone cannot be made to do here.
func TestKeystoneCraftedProjectIDRefused(t *testing.T) {
	a := newKeystoneAPI(t)
	a.ks.AddUser(keystonetest.User{ID: "mallory-id", Name: "mallory", Password: "m-pw", ProjectID: "../../etc", ProjectName: "etc", Roles: []string{"member"}})
	tok := a.ks.Issue(t, "mallory", time.Hour)
	tmpl := map[string]any{"name": "t", "coe": "kubernetes", "image_id": "img", "external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
	a.expectNoCommit(func() {
		expectError(t, a.doToken(tok, "POST", "/v1/clustertemplates", tmpl), http.StatusForbidden, `The token's project id "../../etc" cannot be used`)
	})
}
