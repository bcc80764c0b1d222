package restapi

import (
	"net/http"
	"testing"
)

// site.strict refuses a label outside the catalogue (400, nothing
// committed) unless site.allow lists it.
func TestSiteStrictModeRefusesUnknownLabels(t *testing.T) {
	a := newTestAPI(t)
	a.commitSite(`site: strict: true
site: allow: ["example.com/*"]
`)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
			"coe": "kubernetes", "image_id": "img", "labels": map[string]string{"kube_tag": "v1.33.4", "team": "blue"},
		}), http.StatusBadRequest, "team")
	})
	a.template(member, "allowed", map[string]string{"kube_tag": "v1.33.4", "example.com/team": "blue"})
}
