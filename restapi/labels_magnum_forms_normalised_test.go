package restapi

import (
	"net/http"
	"testing"
)

// Label values Magnum accepted in another form are accepted and stored in
// keel's: container_infra_prefix with the Heat driver's trailing slash, on
// a template create, a cluster create and a template patch.
func TestLabelsMagnumFormsNormalised(t *testing.T) {
	a := newTestAPI(t)
	const given, stored = "myregistry.example.com/mycontainers/", "myregistry.example.com/mycontainers"
	tmpl := a.template(member, "mirror", map[string]string{"kube_tag": "v1.33.4", "container_infra_prefix": given})
	if got := tmpl.Labels["container_infra_prefix"]; got != stored {
		t.Errorf("template create: container_infra_prefix = %q, want %q", got, stored)
	}
	uuid := a.cluster(member, "c1", tmpl.UUID, 1)
	unused := a.template(member, "unused", nil) // a template in use takes no patch
	for _, tc := range []struct {
		name, method, path string
		body               any
		status             int
		labels             func(map[string]any) any
	}{
		{"cluster create", "POST", "/v1/clusters", map[string]any{"name": "c2", "cluster_template_id": tmpl.UUID, "merge_labels": true,
			"labels": map[string]string{"container_infra_prefix": given}}, http.StatusAccepted, nil},
		{"template patch", "PATCH", "/v1/clustertemplates/" + unused.UUID, []map[string]any{{"op": "add",
			"path": "/labels/container_infra_prefix", "value": "other.example.com/x/"}}, http.StatusOK,
			func(doc map[string]any) any { return doc["labels"].(map[string]any)["container_infra_prefix"] }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(member, "", tc.method, tc.path, tc.body)
			if r.status != tc.status {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if tc.labels != nil {
				if got := tc.labels(r.json(t)); got != "other.example.com/x" {
					t.Errorf("stored %v", got)
				}
			}
		})
	}
	r := a.do(member, "", "GET", "/v1/clusters/"+uuid, nil)
	if got := r.json(t)["labels"].(map[string]any)["container_infra_prefix"]; got != stored {
		t.Errorf("cluster inherits container_infra_prefix %v, want %q", got, stored)
	}
}
