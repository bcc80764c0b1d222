package restapi

import (
	"net/http"
	"testing"

	"github.com/openkeel/keel/restapi/body"
)

// An explicit null in any attribute of any create or action body is a
// client error or accepted, never a 5xx, and a refused one commits nothing
// ("coe": null once answered 500 from a nil dereference).
func TestNullInEveryAttributeIsNeverA5xx(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "nulls", nil)
	cl := a.cluster(member, "nulls", tmpl.UUID, 1)
	a.complete(cl)
	for _, route := range []struct {
		method, path string
		fields       []body.Field
		valid        map[string]any
	}{
		{"POST", "/v1/clustertemplates", templateFields, map[string]any{"coe": "kubernetes", "image_id": "img", "labels": map[string]string{"kube_tag": "v1.33.4"}}},
		{"POST", "/v1/clusters", clusterFields, map[string]any{"cluster_template_id": tmpl.UUID, "name": "c2"}},
		{"POST", "/v1/clusters/" + cl + "/nodegroups", nodeGroupFields, map[string]any{"name": "ng", "node_count": 1}},
		{"POST", "/v1/clusters/" + cl + "/actions/resize", resizeFields, map[string]any{"node_count": 2}},
		{"POST", "/v1/clusters/" + cl + "/actions/upgrade", upgradeFields, map[string]any{"cluster_template": tmpl.UUID}},
		{"POST", "/v1/quotas", quotaFields, map[string]any{"project_id": "p9", "resource": "Cluster", "hard_limit": 5}},
		{"POST", "/v1/certificates", certificateFields, map[string]any{"cluster_uuid": cl, "csr": "x"}},
	} {
		for _, f := range route.fields {
			if f.ReadOnly {
				continue
			}
			t.Run(route.path+"/"+f.Name, func(t *testing.T) {
				body := map[string]any{}
				for k, v := range route.valid {
					body[k] = v
				}
				body[f.Name] = nil
				before := a.head()
				r := a.do(admin, "latest", route.method, route.path, body)
				if r.status >= 500 {
					t.Fatalf("%s %s with %s null: %d %s", route.method, route.path, f.Name, r.status, r.body)
				}
				if r.status >= 400 && a.head() != before {
					t.Fatalf("refused (%d) but HEAD moved", r.status)
				}
				if f.Mandatory && r.status != http.StatusBadRequest {
					t.Fatalf("mandatory %s null: %d %s, want 400", f.Name, r.status, r.body)
				}
			})
		}
	}
}
