package restapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/restapi/policy"
)

// An operator policy file overrides single rules; the others keep Magnum's
// defaults.
func TestPolicyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	if err := os.WriteFile(file, []byte(`"cluster:create": "role:admin"
"clustertemplate:publish": "role:admin or role:publisher"
`), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, func(c *Config) { c.Policy = p })
	tm := a.template(member, "t1", nil)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{"cluster_template_id": tm.UUID}), 403,
			"Policy doesn't allow cluster:create to be performed.")
	})
	publisher := caller{"p1", "u5", "member,reader,publisher"}
	if r := a.do(publisher, "", "PATCH", "/v1/clustertemplates/t1", `[{"op":"replace","path":"/public","value":"true"}]`); r.status != 200 {
		t.Fatalf("publisher: %d %s", r.status, r.body)
	}
	if _, err := policy.Load(filepath.Join(t.TempDir(), "missing.yaml")); err == nil {
		t.Fatal("missing policy file loaded")
	}
}

// Project isolation on every route: a member of another project never
// sees nor changes p1's resources, and a caller without roles is refused.
func TestCrossProjectEveryRoute(t *testing.T) {
	a := newTestAPI(t)
	id := a.readyCluster(member, "c1", 1)
	a.do(member, "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"ng"}`)
	nobody := caller{"p1", "u7", "guest"}
	type route struct{ method, path, body string }
	routes := []route{
		{"GET", "/v1/clustertemplates/c1-t", ""},
		{"PATCH", "/v1/clustertemplates/c1-t", `[{"op":"replace","path":"/name","value":"x"}]`},
		{"DELETE", "/v1/clustertemplates/c1-t", ""},
		{"GET", "/v1/clusters/" + id, ""},
		{"PATCH", "/v1/clusters/" + id, `[{"op":"replace","path":"/node_count","value":2}]`},
		{"DELETE", "/v1/clusters/" + id, ""},
		{"POST", "/v1/clusters/" + id + "/actions/resize", `{"node_count":2}`},
		{"POST", "/v1/clusters/" + id + "/actions/upgrade", `{"cluster_template":"c1-t"}`},
		{"GET", "/v1/clusters/" + id + "/nodegroups", ""},
		{"GET", "/v1/clusters/" + id + "/nodegroups/ng", ""},
		{"POST", "/v1/clusters/" + id + "/nodegroups", `{"name":"x"}`},
		{"PATCH", "/v1/clusters/" + id + "/nodegroups/ng", `[{"op":"replace","path":"/min_node_count","value":0}]`},
		{"DELETE", "/v1/clusters/" + id + "/nodegroups/ng", ""},
		{"PATCH", "/v1/credentials/" + id, ""},
	}
	for _, r := range routes {
		t.Run(r.method+" "+r.path, func(t *testing.T) {
			var body any
			if r.body != "" {
				body = r.body
			}
			a.expectNoCommit(func() {
				got := a.do(member2, "1.14", r.method, r.path, body)
				if got.status != http.StatusNotFound {
					t.Fatalf("other project: %d %s", got.status, got.body)
				}
				got = a.do(nobody, "1.14", r.method, r.path, body)
				if got.status != http.StatusForbidden && got.status != http.StatusNotImplemented {
					t.Fatalf("no role: %d %s", got.status, got.body)
				}
			})
		})
	}
	// Lists only ever show the caller's project.
	for _, path := range []string{"/v1/clusters", "/v1/clusters/detail", "/v1/clustertemplates", "/v1/clustertemplates/detail", "/v1/stats"} {
		r := a.do(member2, "1.14", "GET", path, nil)
		if r.status != 200 || strings.Contains(string(r.body), id) || strings.Contains(string(r.body), "c1-t") || strings.Contains(string(r.body), `"clusters":1`) {
			t.Fatalf("%s leaks p1: %d %s", path, r.status, r.body)
		}
	}
}
