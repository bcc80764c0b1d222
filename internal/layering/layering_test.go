package layering

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os/exec"
	"strings"
	"testing"
)

const module = "github.com/openkeel/keel/"

// A rule: packages under one of from (minus except) do not import a package
// under one of deny. Production code is checked with everything it depends
// on (Deps) for keel's own packages, Git and gin, and directly otherwise
// (net/http, SQL drivers and gophercloud come in through client-go and
// CAPO's API types); tests, when checked, by their direct imports.
type rule struct {
	name   string
	from   []string // folders relative to the module root
	except []string
	tests  bool // *_test.go files too
	deny   []string
}

var (
	// Pure rendering: no I/O, none of the stages around it.
	pureFolders = []string{"compiler", "clusterclass", "schemas", "intent", "addons", "notify/oslo"}
	pureDeny    = []string{
		"github.com/go-git", "github.com/gin-gonic", "github.com/gophercloud",
		"database/sql", "github.com/jackc/pgx", "github.com/jmoiron/sqlx", "modernc.org/sqlite",
		module + "cmd", module + "gitstore", module + "repo", module + "restapi",
		module + "reconciler", module + "observer", module + "readmodel",
		module + "mgmtcluster", module + "simulator", module + "internal/openstack",
		// Helm's parts that reach clusters, repositories or registries:
		// charts are rendered from embedded files with its engine only.
		"helm.sh/helm/v3/pkg/action", "helm.sh/helm/v3/pkg/getter",
		"helm.sh/helm/v3/pkg/registry", "helm.sh/helm/v3/pkg/kube", "helm.sh/helm/v3/pkg/downloader",
	}
)

var rules = []rule{
	{name: "pure", from: pureFolders, tests: true, deny: pureDeny},
	{name: "pure-no-http", from: pureFolders, deny: []string{"net/http"}},
	{name: "reconciler", from: []string{"reconciler"},
		deny: []string{module + "compiler", module + "restapi", module + "readmodel", module + "cmd"}},
	{name: "restapi", from: []string{"restapi"}, tests: true,
		deny: []string{module + "reconciler", module + "observer", module + "simulator", module + "mgmtcluster"}},
	// Review mode sits beside the API, not inside it: the API hands each
	// change to restapi.Reviewer, which the program fills with review.Mode
	// (the API's tests run it in review mode on a real Gitea).
	{name: "restapi-review", from: []string{"restapi"}, deny: []string{module + "review"}},
	// Review mode proposes changes and checks pull requests: no HTTP
	// framework, no API, none of the stages that apply or observe.
	{name: "review", from: []string{"review"}, tests: true,
		deny: []string{"github.com/gin-gonic", module + "restapi", module + "reconciler", module + "observer",
			module + "readmodel", module + "mgmtcluster", module + "simulator"}},
	// The write path is the API's without HTTP: a handler turns its request
	// into a write.Caller and a change, nothing below it sees the request;
	// review mode comes in through write.Reviewer.
	{name: "write-path", from: []string{"restapi/write"}, tests: true,
		deny: []string{"github.com/gin-gonic", module + "restapi/apierr", module + "restapi/auth", module + "restapi/lookup",
			module + "review", module + "reconciler", module + "observer", module + "mgmtcluster", module + "simulator"}},
	{name: "restapi-parts", from: []string{"restapi/apierr", "restapi/auth", "restapi/body", "restapi/jsonpatch", "restapi/lookup", "restapi/policy"}, tests: true,
		deny: []string{"github.com/go-git", module + "gitstore", module + "repo", module + "readmodel", module + "compiler"}},
	{name: "clusterapi", from: []string{"mgmtcluster/clusterapi"},
		deny: []string{module + "simulator", module + "reconciler", module + "restapi",
			module + "observer", module + "compiler", module + "gitstore", module + "readmodel"}},
	{name: "forge", from: []string{"forge"}, tests: true,
		deny: []string{module + "gitstore", module + "repo", module + "restapi", module + "readmodel",
			module + "reconciler", module + "compiler", module + "mgmtcluster"}},
	// The API and the rest see forge.Forge; only the program picks an
	// adapter (tests may use one).
	{name: "forge-adapters", from: []string{""}, except: []string{"cmd", "forge"},
		deny: []string{module + "forge/gitea", module + "forge/github", module + "forge/gitlab"}},
	{name: "program", from: []string{""}, except: []string{"cmd"}, tests: true,
		deny: []string{module + "cmd"}},
	// keel import reads Magnum's database and commits intent through
	// gitstore: no HTTP, not the API, none of the stages after Git.
	{name: "magnumimport", from: []string{"magnumimport"}, tests: true,
		deny: []string{"github.com/gin-gonic", "net/http", module + "restapi", module + "compiler", module + "reconciler",
			module + "observer", module + "readmodel", module + "mgmtcluster", module + "simulator", module + "review", module + "cmd"}},
	// Notifications are the last stage: the sender reads the read model's
	// outbox and publishes it; it knows nothing of the API or the stages
	// that render, apply and observe.
	{name: "notify", from: []string{"notify"}, tests: true,
		deny: []string{"github.com/gin-gonic", module + "restapi", module + "compiler", module + "reconciler",
			module + "observer", module + "mgmtcluster", module + "simulator", module + "review"}},
	// Test helpers (internal/testing: fakes, replays, a real Gitea;
	// internal/testenv: a real management cluster) stay out of what keel
	// ships.
	{name: "test-helpers", from: []string{""},
		except: []string{"internal/testenv", "internal/testing"},
		deny:   []string{module + "internal/testenv", module + "internal/testing"}},
}

// directOnly are denied prefixes checked on direct imports only.
var directOnly = []string{"net/http", "github.com/gophercloud", "database/sql",
	"github.com/jackc/pgx", "github.com/jmoiron/sqlx", "modernc.org/sqlite"}

type pkg struct {
	ImportPath   string
	Imports      []string
	Deps         []string
	TestImports  []string
	XTestImports []string
}

// under reports whether path is dir or inside it ("" is everything).
func under(path, dir string) bool {
	return dir == "" || path == dir || strings.HasPrefix(path, dir+"/")
}

func underAny(path string, dirs []string) bool {
	for _, d := range dirs {
		if under(path, d) {
			return true
		}
	}
	return false
}

// violations lists "rule: importer imports imported" for every broken rule.
func violations(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		rel := strings.TrimPrefix(p.ImportPath, module)
		if rel == p.ImportPath {
			continue
		}
		for _, r := range rules {
			if !underAny(rel, r.from) || underAny(rel, r.except) {
				continue
			}
			check := func(what string, imports []string) {
				for _, imp := range imports {
					if imp != p.ImportPath && underAny(imp, r.deny) {
						out = append(out, r.name+": "+p.ImportPath+" "+what+" "+imp)
					}
				}
			}
			check("imports", p.Imports)
			// Through other packages: one line per denied prefix is enough.
			direct := map[string]bool{}
			for _, imp := range p.Imports {
				direct[imp] = true
			}
			for _, d := range r.deny {
				if underAny(d, directOnly) {
					continue
				}
				for _, dep := range p.Deps {
					if !direct[dep] && dep != p.ImportPath && under(dep, d) {
						out = append(out, r.name+": "+p.ImportPath+" depends on "+dep+" (through its imports)")
						break
					}
				}
			}
			if r.tests {
				check("(tests) imports", p.TestImports)
				check("(tests) imports", p.XTestImports)
			}
		}
	}
	return out
}

func TestLayering(t *testing.T) {
	cmd := exec.Command("go", "list", "-e",
		"-json=ImportPath,Imports,Deps,TestImports,XTestImports", module+"...")
	cmd.Dir = "../.."
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("go list: %v\n%s", err, stderr.String())
	}
	var pkgs []pkg
	for dec := json.NewDecoder(bytes.NewReader(out)); ; {
		var p pkg
		if err := dec.Decode(&p); errors.Is(err, io.EOF) {
			break
		} else if err != nil {
			t.Fatal(err)
		}
		pkgs = append(pkgs, p)
	}
	if len(pkgs) < 20 {
		t.Fatalf("go list found only %d packages", len(pkgs))
	}
	for _, v := range violations(pkgs) {
		t.Error(v)
	}
}

// TestRulesCatch proves each rule reports a forbidden import.
func TestRulesCatch(t *testing.T) {
	for _, c := range []struct {
		p    pkg
		rule string
	}{
		{pkg{ImportPath: module + "compiler", Imports: []string{"github.com/go-git/go-git/v5"}}, "pure"},
		{pkg{ImportPath: module + "compiler/plan", Deps: []string{module + "gitstore"}}, "pure"},
		{pkg{ImportPath: module + "schemas", TestImports: []string{module + "readmodel"}}, "pure"},
		{pkg{ImportPath: module + "intent", Imports: []string{"net/http"}}, "pure-no-http"},
		{pkg{ImportPath: module + "reconciler", Imports: []string{module + "compiler"}}, "reconciler"},
		{pkg{ImportPath: module + "restapi", Imports: []string{module + "observer"}}, "restapi"},
		{pkg{ImportPath: module + "status", Imports: []string{module + "cmd/keel/server"}}, "program"},
		{pkg{ImportPath: module + "observer", Deps: []string{module + "internal/testenv"}}, "test-helpers"},
		{pkg{ImportPath: module + "mgmtcluster/clusterapi", Deps: []string{module + "simulator"}}, "clusterapi"},
		{pkg{ImportPath: module + "restapi", Imports: []string{module + "forge/github"}}, "forge-adapters"},
		{pkg{ImportPath: module + "forge/gitlab", Deps: []string{module + "internal/testing/forgetest"}}, "test-helpers"},
	} {
		v := violations([]pkg{c.p})
		if len(v) == 0 || !strings.HasPrefix(v[0], c.rule+":") {
			t.Errorf("%+v: got %q, want a %s violation", c.p, v, c.rule)
		}
	}
	// What is allowed stays allowed.
	for _, p := range []pkg{
		{ImportPath: module + "intent", TestImports: []string{"net/http/httptest"}},
		{ImportPath: module + "reconciler", TestImports: []string{module + "compiler", module + "internal/testenv"}},
		{ImportPath: module + "cmd/keel", Imports: []string{module + "cmd/keel/server"}},
		{ImportPath: module + "compiler", Deps: []string{"net/http", "database/sql"}},
		{ImportPath: module + "mgmtcluster/clusterapi", TestImports: []string{module + "compiler"}},
		{ImportPath: module + "cmd/keel", Imports: []string{module + "forge/gitlab"}},
		{ImportPath: module + "restapi", TestImports: []string{module + "forge/gitea"}},
		{ImportPath: module + "forge/github", TestImports: []string{module + "internal/testing/forgetest"}},
	} {
		if v := violations([]pkg{p}); len(v) != 0 {
			t.Errorf("%+v: unexpected %q", p, v)
		}
	}
}
