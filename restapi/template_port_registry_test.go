package restapi

import (
	"net/http"
	"testing"
)

// apiserver_port and insecure_registry reach Cluster API in keel, so the
// API refuses values that cannot work there, with the schema's message
// (schemas/documents.cue), and never changes them under a running cluster.
func TestTemplateAPIServerPortAndInsecureRegistry(t *testing.T) {
	a := newTestAPI(t)
	for _, c := range []struct {
		extra map[string]any
		want  string
	}{
		{map[string]any{"insecure_registry": "http://registry.local:5000"}, "Invalid input for field/attribute insecure_registry. Value: 'http://registry.local:5000'. Must be a registry host[:port]"},
		{map[string]any{"insecure_registry": "registry.local/library"}, "field/attribute insecure_registry"},
		{map[string]any{"apiserver_port": 8443}, "Invalid input for field/attribute apiserver_port. Value: '8443'. Must be an integer between 1024 and 65535, not a port control-plane nodes use"},
		{map[string]any{"apiserver_port": 30080}, "NodePort"},
	} {
		a.expectNoCommit(func() {
			expectError(t, a.do(member, "", "POST", "/v1/clustertemplates", templateBody("bad", c.extra)), http.StatusBadRequest, c.want)
		})
	}
	r := a.do(member, "", "POST", "/v1/clustertemplates", templateBody("good", map[string]any{"apiserver_port": 7443, "insecure_registry": "registry.local:5000",
		"flavor_id": "m1.medium", "master_flavor_id": "m1.large"}))
	if r.status != http.StatusCreated {
		t.Fatalf("valid template: %d %s", r.status, r.body)
	}
	tmpl := r.json(t)
	if tmpl["apiserver_port"] != float64(7443) || tmpl["insecure_registry"] != "registry.local:5000" {
		t.Errorf("stored %v %v", tmpl["apiserver_port"], tmpl["insecure_registry"])
	}
	uuid := tmpl["uuid"].(string)
	// A PATCH is validated too.
	expectError(t, a.do(member, "", "PATCH", "/v1/clustertemplates/"+uuid,
		[]map[string]any{{"op": "replace", "path": "/insecure_registry", "value": "https://registry.local"}}),
		http.StatusBadRequest, "field/attribute insecure_registry")
	// Once a cluster runs on the template, neither moves (Magnum's rule for
	// templates in use): the API endpoint cannot move under CAPO.
	a.cluster(member, "c1", uuid, 1)
	for _, op := range []map[string]any{
		{"op": "replace", "path": "/apiserver_port", "value": 7444},
		{"op": "replace", "path": "/insecure_registry", "value": "registry.local:5001"},
	} {
		a.expectNoCommit(func() {
			expectError(t, a.do(member, "", "PATCH", "/v1/clustertemplates/"+uuid, []map[string]any{op}),
				http.StatusBadRequest, "is referenced by one or multiple clusters")
		})
	}
}
