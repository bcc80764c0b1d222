package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// A project id that is not one keel can store (a folder name of the
// repository) is a 400 naming the field it came in, and nothing is
// committed: the header of noauth, the body of POST /v1/quotas, the path
// of the quota routes. Each value here wrote a path outside the layout, or
// one `git clone` cannot check out, before issue 31.
func TestCraftedProjectIDRefused(t *testing.T) {
	a := newTestAPI(t)
	crafted := []string{
		"../../etc", "../clusterclasses/magnum-v0.1.0", "..", ".", "/etc/passwd", "a/b",
		"../README", ".git", "a b", "ü", strings.Repeat("a", 65),
	}
	tmpl := map[string]any{"name": "t", "coe": "kubernetes", "image_id": "img", "external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
	for _, id := range crafted {
		t.Run(id, func(t *testing.T) {
			a.t = t
			a.expectNoCommit(func() {
				who := caller{id, "u1", "member,reader"}
				expectError(t, a.do(who, "", "POST", "/v1/clustertemplates", tmpl), http.StatusBadRequest,
					"Invalid input for field/attribute X-Project-Id")
				q := map[string]any{"project_id": id, "resource": "Cluster", "hard_limit": 3}
				expectError(t, a.do(admin, "", "POST", "/v1/quotas", q), http.StatusBadRequest,
					"Invalid input for field/attribute project_id")
			})
		})
	}
	a.t = t
	for _, target := range []string{"/v1/quotas/%2e%2e/Cluster", "/v1/quotas/.git/Cluster", "/v1/quotas/a.b/Cluster", "/v1/quotas/a%00b/Cluster"} {
		for _, method := range []string{"GET", "PATCH", "DELETE"} {
			a.expectNoCommit(func() {
				expectError(t, a.do(admin, "", method, target, map[string]any{"hard_limit": 2}), http.StatusBadRequest,
					"Invalid input for field/attribute project_id")
			})
		}
	}
}
