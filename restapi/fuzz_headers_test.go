package restapi

import (
	"fmt"
	"net/http"
	"strings"
)

// fuzzedHeaders are the request headers FuzzWriteRoutes lets an input set:
// who the caller is under noauth, and the microversion.
var fuzzedHeaders = []string{"X-Project-Id", "X-User-Id", "X-User-Name", "X-Project-Name", "X-Roles", "OpenStack-API-Version"}

// fuzzHeaders are the headers of one fuzzed request: the caller's, the
// microversion mv ("1.10" stands for "container-infra 1.10"), then each "Name: value" line of lines that names one of
// fuzzedHeaders (an empty value drops the header). Values keep what an
// HTTP header can carry (Go's server refuses the rest before keel sees it).
func fuzzHeaders(c caller, mv, lines string) [][2]string {
	set := map[string]string{"X-Project-Id": c.project, "X-User-Id": c.user, "X-Roles": c.roles}
	if mv = cleanHeader(mv); mv != "" {
		if !strings.Contains(mv, " ") {
			// A bare version ("1.10") is the container-infra one; an
			// input that wants another form sends the whole header.
			mv = "container-infra " + mv
		}
		set["OpenStack-API-Version"] = mv
	}
	for _, l := range strings.Split(lines, "\n") {
		name, value, ok := strings.Cut(l, ":")
		name = http.CanonicalHeaderKey(strings.TrimSpace(name))
		for _, h := range fuzzedHeaders {
			if ok && strings.EqualFold(name, h) {
				set[h] = strings.TrimSpace(cleanHeader(value))
			}
		}
	}
	var out [][2]string
	for _, h := range fuzzedHeaders {
		if v := set[h]; v != "" {
			out = append(out, [2]string{h, v})
		}
	}
	return out
}

// craftedIDs are ids a hostile client sends where keel expects a project
// id (header, quota body, quota path): each once reached a repository path.
var craftedIDs = map[string]string{
	"traversal":    "../../etc",
	"into-class":   "../clusterclasses/magnum-v0.1.0",
	"readme":       "../README",
	"absolute":     "/etc/passwd",
	"dotdot":       "..",
	"dot":          ".",
	"dot-git":      ".git",
	"space":        "a b",
	"encoded":      "%2e%2e",
	"unicode":      "ü",
	"too-long":     strings.Repeat("a", 65),
	"angle":        "<p>",
	"trailer-like": "p1 Keel-Operation: delete",
}

// headerSeeds: crafted project ids on every write route, as the header and
// (on the quota routes) in the body and path; odd user ids, names and roles.
func headerSeeds() []fuzzSeed {
	var out []fuzzSeed
	add := func(name, route string, who uint8, id1, headers, body string) {
		out = append(out, fuzzSeed{name, routeIndex(route), who, "1.10", id1, "", headers, body})
	}
	const member, admin = 0, 1
	tmpl := `{"name":"fz-h","coe":"kubernetes","image_id":"img","flavor_id":"m1","master_flavor_id":"m1","external_network_id":"public","labels":{"kube_tag":"v1.33.4"}}`
	for n, id := range craftedIDs {
		for _, r := range writeRoutes {
			slug := strings.ToLower(r.method) + strings.NewReplacer("/v1/", "-", "/", "-", "{", "", "}", "").Replace(r.path)
			body := "{}"
			if r.method == "POST" && r.path == "/v1/clustertemplates" {
				body = tmpl
			}
			add(slug+"-header-project-"+n, r.method+" "+r.path, member, "", "X-Project-Id: "+id, body)
		}
		add("post-quotas-body-project-"+n, "POST /v1/quotas", admin, "", "", fmt.Sprintf(`{"project_id":%q,"resource":"Cluster","hard_limit":3}`, id))
		add("patch-quotas-path-project-"+n, "PATCH /v1/quotas/{p}/{r}", admin, id, "", `{"hard_limit":4}`)
		add("delete-quotas-path-project-"+n, "DELETE /v1/quotas/{p}/{r}", admin, id, "", "")
	}
	odd := map[string]string{
		"user-angle":    "X-User-Id: eve <root@example.org>",
		"user-long":     "X-User-Id: " + strings.Repeat("u", 2000),
		"user-name":     "X-User-Name: Eve \"<>\" Keel-User: root",
		"project-name":  "X-Project-Name: ../../etc",
		"roles-empty":   "X-Roles: ,, ,",
		"roles-upper":   "X-Roles: ADMIN,Member",
		"roles-many":    "X-Roles: " + strings.Repeat("member,", 500),
		"no-project":    "X-Project-Id: ",
		"version-crlf":  "OpenStack-API-Version: container-infra 1.10\r\nX-Project-Id: ../x",
		"unicode-user":  "X-User-Id: \u202euser\u200b",
		"trailer-value": "X-User-Id: u1\nX-User-Name: a\\nKeel-Operation: delete",
	}
	for n, h := range odd {
		add("post-clustertemplates-header-"+n, "POST /v1/clustertemplates", member, "", h, tmpl)
		add("post-quotas-header-"+n, "POST /v1/quotas", admin, "", h, `{"project_id":"p8","resource":"Cluster","hard_limit":3}`)
	}
	return out
}
