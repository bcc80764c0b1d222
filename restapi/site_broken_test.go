package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// A site.cue that does not load refuses writes with a 500 naming the file
// and the CUE error, commits nothing, and leaves reads working.
func TestBrokenSiteFileRefusesWritesNotReads(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "k8s", nil)
	// A default outside the site's own allowed list.
	a.commitSite(`site: allowed: calico_tag: ["v3.28.5"]
`)
	for _, tc := range []struct {
		method, path string
		body         any
	}{
		{"POST", "/v1/clustertemplates", map[string]any{"coe": "kubernetes", "image_id": "img", "labels": map[string]string{"kube_tag": "v1.33.4"}}},
		{"POST", "/v1/clusters", map[string]any{"cluster_template_id": tmpl.UUID}},
		// Even a write that neither validates labels nor renders.
		{"DELETE", "/v1/clustertemplates/" + tmpl.UUID, nil},
	} {
		a.expectNoCommit(func() {
			r := a.do(member, "", tc.method, tc.path, tc.body)
			expectError(t, r, http.StatusInternalServerError, "Invalid site file in the cluster repository")
			if !strings.Contains(string(r.body), "site.cue: ") || !strings.Contains(string(r.body), "the site narrows calico_tag to v3.28.5") {
				t.Errorf("%s %s: the error names neither site.cue nor the CUE error: %s", tc.method, tc.path, r.body)
			}
		})
	}
	if r := a.do(member, "", "GET", "/v1/clustertemplates/"+tmpl.UUID, nil); r.status != http.StatusOK {
		t.Errorf("GET template with a broken site.cue: %d %s", r.status, r.body)
	}

	// Fixed in Git, writes work again.
	a.commitSite(`site: allowed: calico_tag: ["v3.28.5"]
site: defaults: calico_tag: "v3.28.5"
`)
	a.template(member, "after-fix", nil)
}
