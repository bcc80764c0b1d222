package restapi

import (
	"net/http"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/openkeel/keel/restapi/policy"
)

// allProjectsFixture: private templates and clusters in p1 and p2, and an
// admin's public, public hidden and private templates.
type allProjectsFixture struct {
	tmpl     map[string]string // name → uuid
	clusters map[string]string
}

func newAllProjectsFixture(a *testAPI) allProjectsFixture {
	a.t.Helper()
	f := allProjectsFixture{tmpl: map[string]string{}, clusters: map[string]string{}}
	f.tmpl["t-p1"] = a.template(member, "t-p1", nil).UUID
	f.tmpl["t-p2"] = a.template(member2, "t-p2", nil).UUID
	f.tmpl["t-admin"] = a.template(admin, "t-admin", nil).UUID
	for name, extra := range map[string]map[string]any{"pub": {"public": true}, "hidden-pub": {"public": true, "hidden": true}} {
		r := a.do(admin, "", "POST", "/v1/clustertemplates", templateBody(name, extra))
		if r.status != http.StatusCreated {
			a.t.Fatalf("creating %s: %d %s", name, r.status, r.body)
		}
		f.tmpl[name] = r.json(a.t)["uuid"].(string)
	}
	f.clusters["c1"] = a.cluster(member, "c1", f.tmpl["t-p1"], 1)
	f.clusters["c2"] = a.cluster(member2, "c2", f.tmpl["t-p2"], 1)
	return f
}

// names lists the names in a list answer's collection.
func names(t *testing.T, r response, collection string) string {
	t.Helper()
	if r.status != http.StatusOK {
		t.Fatalf("list %s: %d %s", collection, r.status, r.body)
	}
	var out []string
	for _, it := range r.json(t)[collection].([]any) {
		out = append(out, it.(map[string]any)["name"].(string))
	}
	sort.Strings(out)
	return strings.Join(out, ",")
}

// Default policy: an admin's lists and gets span every project, hidden
// public templates included; a member sees its project and the public
// templates that are not hidden.
func TestAllProjectsDefaultPolicy(t *testing.T) {
	a := newTestAPI(t)
	f := newAllProjectsFixture(a)
	for _, path := range []string{"/v1/clustertemplates", "/v1/clustertemplates/detail"} {
		if got, want := names(t, a.do(admin, "", "GET", path, nil), "clustertemplates"), "hidden-pub,pub,t-admin,t-p1,t-p2"; got != want {
			t.Errorf("admin GET %s: %s, want %s", path, got, want)
		}
		if got, want := names(t, a.do(member, "", "GET", path, nil), "clustertemplates"), "pub,t-p1"; got != want {
			t.Errorf("member GET %s: %s, want %s", path, got, want)
		}
	}
	for _, path := range []string{"/v1/clusters", "/v1/clusters/detail"} {
		if got, want := names(t, a.do(admin, "1.10", "GET", path, nil), "clusters"), "c1,c2"; got != want {
			t.Errorf("admin GET %s: %s, want %s", path, got, want)
		}
		if got, want := names(t, a.do(member, "1.10", "GET", path, nil), "clusters"), "c1"; got != want {
			t.Errorf("member GET %s: %s, want %s", path, got, want)
		}
	}
	for _, name := range []string{"t-p2", "hidden-pub"} {
		if r := a.do(admin, "", "GET", "/v1/clustertemplates/"+f.tmpl[name], nil); r.status != http.StatusOK {
			t.Errorf("admin GET template %s: %d %s", name, r.status, r.body)
		}
		expectError(t, a.do(member, "", "GET", "/v1/clustertemplates/"+f.tmpl[name], nil), http.StatusNotFound, "could not be found")
	}
	if r := a.do(admin, "1.10", "GET", "/v1/clusters/"+f.clusters["c2"], nil); r.status != http.StatusOK {
		t.Errorf("admin GET cluster c2: %d %s", r.status, r.body)
	}
	expectError(t, a.do(member, "1.10", "GET", "/v1/clusters/"+f.clusters["c2"], nil), http.StatusNotFound, "could not be found")
}

// A policy file taking the *_all_projects rights away from admins: as in
// Magnum, the rule is checked for every admin on these routes and its
// denial is a 403 (Magnum's policy.enforce raises; it does not fall back
// to the admin's project), while other callers are not concerned.
func TestAllProjectsDeniedByPolicyFile(t *testing.T) {
	file := filepath.Join(t.TempDir(), "policy.yaml")
	rules := []string{
		"clustertemplate:get_all_all_projects", "clustertemplate:detail_all_projects", "clustertemplate:get_one_all_projects",
		"cluster:get_all_all_projects", "cluster:detail_all_projects", "cluster:get_one_all_projects",
	}
	var doc strings.Builder
	for _, r := range rules {
		doc.WriteString(`"` + r + `": "!"` + "\n")
	}
	if err := os.WriteFile(file, []byte(doc.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	p, err := policy.Load(file)
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, func(c *Config) { c.Policy = p })
	f := newAllProjectsFixture(a)
	for path, rule := range map[string]string{
		"/v1/clustertemplates":                         "clustertemplate:get_all_all_projects",
		"/v1/clustertemplates/detail":                  "clustertemplate:detail_all_projects",
		"/v1/clustertemplates/" + f.tmpl["t-admin"]:    "clustertemplate:get_one_all_projects",
		"/v1/clustertemplates/" + f.tmpl["t-p2"]:       "clustertemplate:get_one_all_projects",
		"/v1/clusters":                                 "cluster:get_all_all_projects",
		"/v1/clusters/detail":                          "cluster:detail_all_projects",
		"/v1/clusters/" + f.clusters["c2"]:             "cluster:get_one_all_projects",
		"/v1/clustertemplates/" + f.tmpl["hidden-pub"]: "clustertemplate:get_one_all_projects",
	} {
		r := a.do(admin, "1.10", "GET", path, nil)
		expectError(t, r, http.StatusForbidden, "Policy doesn't allow "+rule+" to be performed.")
		for _, leak := range []string{"t-p2", "c2"} {
			if strings.Contains(string(r.body), `"`+leak+`"`) {
				t.Errorf("GET %s leaks %s: %s", path, leak, r.body)
			}
		}
	}
	// Non-admins are not checked against *_all_projects.
	if got, want := names(t, a.do(member, "", "GET", "/v1/clustertemplates", nil), "clustertemplates"), "pub,t-p1"; got != want {
		t.Errorf("member templates: %s, want %s", got, want)
	}
	if got, want := names(t, a.do(member, "1.10", "GET", "/v1/clusters/detail", nil), "clusters"), "c1"; got != want {
		t.Errorf("member clusters: %s, want %s", got, want)
	}
	if r := a.do(member, "1.10", "GET", "/v1/clusters/"+f.clusters["c1"], nil); r.status != http.StatusOK {
		t.Errorf("member GET c1: %d %s", r.status, r.body)
	}
}

// A policy file keeping one *_all_projects right: each route checks its
// own rule.
func TestAllProjectsRulePerRoute(t *testing.T) {
	p, err := policy.New(map[string]string{"cluster:get_all_all_projects": "!", "clustertemplate:detail_all_projects": "!"})
	if err != nil {
		t.Fatal(err)
	}
	a := newTestAPI(t, func(c *Config) { c.Policy = p })
	newAllProjectsFixture(a)
	expectError(t, a.do(admin, "1.10", "GET", "/v1/clusters", nil), http.StatusForbidden, "cluster:get_all_all_projects")
	if got, want := names(t, a.do(admin, "1.10", "GET", "/v1/clusters/detail", nil), "clusters"), "c1,c2"; got != want {
		t.Errorf("admin clusters/detail: %s, want %s", got, want)
	}
	expectError(t, a.do(admin, "", "GET", "/v1/clustertemplates/detail", nil), http.StatusForbidden, "clustertemplate:detail_all_projects")
	if got, want := names(t, a.do(admin, "", "GET", "/v1/clustertemplates", nil), "clustertemplates"), "hidden-pub,pub,t-admin,t-p1,t-p2"; got != want {
		t.Errorf("admin clustertemplates: %s, want %s", got, want)
	}
}
