package restapi

import (
	"net/http"
	"testing"
)

// An admin token (admin ⇒ member ⇒ reader as Keystone expands it) may
// publish a template, and spans every project on the list routes.
func TestKeystoneAdmin(t *testing.T) {
	a := newKeystoneAPI(t)
	member := a.ks.Issue(t, ksMember.Name, 0)
	if r := a.doToken(member, "POST", "/v1/clustertemplates", templateBody("private", nil)); r.status != http.StatusCreated {
		t.Fatalf("member create: %d %s", r.status, r.body)
	}
	a.expectNoCommit(func() {
		expectError(t, a.doToken(member, "POST", "/v1/clustertemplates", templateBody("pub", map[string]any{"public": true})),
			http.StatusForbidden, "Not authorized to set public or hidden flag for cluster template.")
	})

	root := a.ks.Issue(t, ksAdmin.Name, 0)
	r := a.doToken(root, "POST", "/v1/clustertemplates", templateBody("pub", map[string]any{"public": true}))
	if r.status != http.StatusCreated || r.json(t)["project_id"] != ksAdmin.ProjectID {
		t.Fatalf("admin create public: %d %s", r.status, r.body)
	}
	r = a.doToken(root, "GET", "/v1/clustertemplates", nil)
	if r.status != http.StatusOK {
		t.Fatalf("admin list: %d %s", r.status, r.body)
	}
	names := map[string]bool{}
	for _, it := range r.json(t)["clustertemplates"].([]any) {
		names[it.(map[string]any)["name"].(string)] = true
	}
	if !names["private"] || !names["pub"] || len(names) != 2 {
		t.Fatalf("admin sees %v, want private (p1) and pub", names)
	}
	if r := a.doToken(root, "GET", "/v1/mservices", nil); r.status != http.StatusOK {
		t.Fatalf("admin mservices: %d %s", r.status, r.body)
	}
}
