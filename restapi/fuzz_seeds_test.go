package restapi

import (
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite testdata/fuzz/FuzzWriteRoutes from fuzzSeeds")

// fuzzSeed is one input of FuzzWriteRoutes, named after what it tries.
type fuzzSeed struct {
	name     string
	route    uint8
	who      uint8 // index in fzCallers: 0 member, 1 admin, 2 reader, 3 another project's member
	mv       string
	id1, id2 string
	headers  string // "Name: value" lines that replace the caller's (fuzzHeaders)
	body     string
}

func routeIndex(key string) uint8 {
	for i, r := range writeRoutes {
		if r.method+" "+r.path == key {
			return uint8(i)
		}
	}
	panic("no route " + key)
}

// Bad bodies every write route gets: malformed JSON, wrong top-level types,
// huge and deep documents, odd Unicode and NUL bytes.
var badBodies = map[string]string{
	"empty":            "",
	"open-brace":       "{",
	"open-bracket":     "[",
	"null":             "null",
	"true":             "true",
	"string":           `"x"`,
	"number":           "1e400",
	"trailing-comma":   `{"name":"x",}`,
	"trailing-garbage": `{"name":"x"}garbage`,
	"two-documents":    `{"name":"x"}{"name":"y"}`,
	"invalid-utf8":     "{\"name\":\"\xff\xfe\"}",
	"nul-escaped":      `{"name":"a\u0000b"}`,
	"nul-raw":          "{\"name\":\"a\x00b\"}",
	"lone-surrogate":   `{"name":"\ud800"}`,
	"bom":              "\xef\xbb\xbf{}",
	"duplicate-keys":   `{"name":"a","name":"b"}`,
	"deep-array":       strings.Repeat("[", 100000),
	"deep-object":      strings.Repeat(`{"a":`, 20000) + "1" + strings.Repeat("}", 20000),
	"huge":             `{"name":"` + strings.Repeat("x", 300<<10) + `"}`,
	"huge-labels":      `{"labels":{` + strings.Repeat(`"k":"v",`, 30000) + `"k":"v"}}`,
}

// Path idents: traversal, encoded traversal, slashes, NUL, odd Unicode.
var badIdents = map[string]string{
	"dotdot":         "..",
	"dotdot-slash":   "../..",
	"encoded-dotdot": "%2e%2e",
	"encoded-slash":  "..%2f..%2fetc",
	"slash":          "a/b",
	"dot-git":        ".git",
	"encoded-nul":    "x%00y",
	"raw-nul":        "x\x00y",
	"encoded-ff":     "%ff",
	"back-and-forth": fzCluster + "/../" + fzCluster,
	"double-slash":   "//",
	"unicode":        "ü\u202e\u200b",
	"long":           strings.Repeat("n", 5000),
	"query":          "x?all_projects=1",
}

// Names, keys and values a body may carry that could reach a file name or
// a YAML document.
var oddStrings = map[string]string{
	"traversal":  "../../etc",
	"dot-git":    ".git",
	"slash":      "a/b",
	"empty":      "",
	"nul":        "a\x00b",
	"rtl":        "\u202etxt.exe",
	"zero-width": "a\u200bb",
	"yaml-merge": "<<",
	"yaml-tag":   "!!binary",
	"newline":    "a\nb: c",
	"long":       strings.Repeat("y", 1000),
}

func jsonString(s string) string { return fmt.Sprintf("%q", s) }

func fuzzSeeds() []fuzzSeed {
	var out []fuzzSeed
	add := func(name, route string, who uint8, mv, id1, id2, body string) {
		out = append(out, fuzzSeed{name, routeIndex(route), who, mv, id1, id2, "", body})
	}
	const member, admin, reader, other = 0, 1, 2, 3
	const tmpl = `"coe":"kubernetes","image_id":"img","flavor_id":"m1","master_flavor_id":"m1","external_network_id":"public"`
	for _, r := range writeRoutes {
		key := r.method + " " + r.path
		slug := strings.ToLower(r.method) + strings.NewReplacer("/v1/", "-", "/", "-", "{", "", "}", "").Replace(r.path)
		who := uint8(member)
		if strings.Contains(key, "quotas") {
			who = admin
		}
		// The body limit and the JSON parser are shared: the big bodies go
		// to one route of each parser (object bodies, patch lists).
		big := key == "POST /v1/clustertemplates" || key == "PATCH /v1/clusters/{c}"
		// Every small bad body on the routes that parse an object of
		// their own, a few on the others.
		parses := big || key == "POST /v1/clusters" || key == "POST /v1/clusters/{c}/nodegroups" || key == "POST /v1/quotas" ||
			key == "POST /v1/certificates" || key == "POST /v1/clusters/{c}/actions/resize" || key == "POST /v1/clusters/{c}/actions/upgrade" ||
			key == "PATCH /v1/clusters/{c}/nodegroups/{n}"
		few := map[string]bool{"empty": true, "open-brace": true, "null": true, "invalid-utf8": true, "nul-raw": true}
		for bn, b := range badBodies {
			if (len(b) < 1000 && (parses || few[bn])) || big {
				add(slug+"-body-"+bn, key, who, "1.10", "", "", b)
			}
		}
		// Every ident on the routes that write a file named after it (or
		// look one up by it), a few elsewhere.
		allIdents := key == "PATCH /v1/clustertemplates/{t}" || key == "DELETE /v1/clusters/{c}" ||
			key == "PATCH /v1/clusters/{c}/nodegroups/{n}" || key == "PATCH /v1/quotas/{p}/{r}" || key == "POST /v1/clusters/{c}/actions/resize"
		if strings.Contains(r.path, "{") {
			for in, id := range badIdents {
				if !allIdents && in != "dotdot-slash" && in != "encoded-dotdot" && in != "raw-nul" {
					continue
				}
				add(slug+"-ident-"+in, key, who, "1.10", id, "", "{}")
				if strings.Count(r.path, "{") == 2 {
					add(slug+"-ident2-"+in, key, who, "1.10", "", id, "{}")
				}
			}
		}
		add(slug+"-version-garbage", key, who, "container-infra 1.x\x00", "", "", "{}")
		add(slug+"-version-latest", key, who, "container-infra latest", "", "", "{}")
		add(slug+"-reader", key, reader, "1.10", "", "", "{}")
		add(slug+"-other-project", key, other, "1.10", "", "", "{}")
	}

	// Templates: wrong types and nulls per field, odd names and labels.
	add("post-clustertemplates-valid", "POST /v1/clustertemplates", member, "", "", "", `{"name":"fz-new",`+tmpl+`,"labels":{"kube_tag":"v1.33.4"}}`)
	add("post-clustertemplates-no-kube-tag", "POST /v1/clustertemplates", member, "", "", "", `{"name":"fz-gc",`+tmpl+`,"labels":{"test":"test"}}`)
	for _, f := range []string{"coe", "image_id", "name", "labels", "flavor_id", "keypair_id", "docker_volume_size", "network_driver", "public", "tls_disabled", "master_lb_enabled", "apiserver_port", "dns_nameserver", "fixed_network", "hidden", "tags", "cluster_distro", "server_type", "insecure_registry"} {
		for vn, v := range map[string]string{"null": "null", "number": "1.5", "object": `{"a":1}`, "string": `"x"`} {
			add(fmt.Sprintf("post-clustertemplates-%s-%s", f, vn), "POST /v1/clustertemplates", member, "", "", "", fmt.Sprintf(`{%s,%q:%s}`, tmpl, f, v))
		}
	}
	for sn, s := range oddStrings {
		add("post-clustertemplates-name-"+sn, "POST /v1/clustertemplates", member, "", "", "", fmt.Sprintf(`{%s,"name":%s,"labels":{"kube_tag":"v1.33.4"}}`, tmpl, jsonString(s)))
		add("post-clustertemplates-label-key-"+sn, "POST /v1/clustertemplates", member, "", "", "", fmt.Sprintf(`{%s,"labels":{"kube_tag":"v1.33.4",%s:"v"}}`, tmpl, jsonString(s)))
		add("post-clustertemplates-label-value-"+sn, "POST /v1/clustertemplates", member, "", "", "", fmt.Sprintf(`{%s,"labels":{"kube_tag":"v1.33.4","k":%s}}`, tmpl, jsonString(s)))
		add("post-clusters-name-"+sn, "POST /v1/clusters", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template_id":%q,"name":%s}`, fzTemplate, jsonString(s)))
		add("post-nodegroups-name-"+sn, "POST /v1/clusters/{c}/nodegroups", member, "1.10", "", "", fmt.Sprintf(`{"name":%s,"node_count":1}`, jsonString(s)))
		add("post-quotas-project-"+sn, "POST /v1/quotas", admin, "", "", "", fmt.Sprintf(`{"project_id":%s,"resource":"Cluster","hard_limit":3}`, jsonString(s)))
		add("post-certificates-cluster-"+sn, "POST /v1/certificates", member, "", "", "", fmt.Sprintf(`{"cluster_uuid":%s,"csr":"x"}`, jsonString(s)))
		add("patch-clustertemplates-name-"+sn, "PATCH /v1/clustertemplates/{t}", member, "", "", "", fmt.Sprintf(`[{"op":"replace","path":"/name","value":%s}]`, jsonString(s)))
		add("patch-clustertemplates-label-"+sn, "PATCH /v1/clustertemplates/{t}", member, "", "", "", fmt.Sprintf(`[{"op":"add","path":"/labels/%s","value":"v"}]`, strings.ReplaceAll(strings.ReplaceAll(s, "~", "~0"), "/", "~1")))
		add("post-resize-nodegroup-"+sn, "POST /v1/clusters/{c}/actions/resize", member, "1.10", "", "", fmt.Sprintf(`{"node_count":2,"nodegroup":%s}`, jsonString(s)))
		add("post-upgrade-template-"+sn, "POST /v1/clusters/{c}/actions/upgrade", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template":%s}`, jsonString(s)))
		add("post-nodegroups-node-label-"+sn, "POST /v1/clusters/{c}/nodegroups", member, "1.10", "", "", fmt.Sprintf(`{"name":"fz-nl","node_labels":{%s:"v"}}`, jsonString(s)))
	}

	// JSON patches: odd paths and operations on every patchable object.
	patches := map[string]string{
		"root":             `[{"op":"replace","path":"","value":{}}]`,
		"slash":            `[{"op":"replace","path":"/","value":"x"}]`,
		"escaped-slash":    `[{"op":"add","path":"/labels/~1etc~1passwd","value":"x"}]`,
		"bad-escape":       `[{"op":"add","path":"/labels/a~2b","value":"x"}]`,
		"trailing-slash":   `[{"op":"add","path":"/labels/","value":"x"}]`,
		"dotdot":           `[{"op":"add","path":"/labels/../name","value":"x"}]`,
		"deep":             `[{"op":"add","path":"/labels/a/b/c","value":"x"}]`,
		"array-index":      `[{"op":"replace","path":"/name/0","value":"x"}]`,
		"dash":             `[{"op":"add","path":"/-","value":"x"}]`,
		"move":             `[{"op":"move","from":"/name","path":"/labels/x"}]`,
		"copy":             `[{"op":"copy","from":"/labels","path":"/name"}]`,
		"test":             `[{"op":"test","path":"/name","value":"nope"}]`,
		"unknown-op":       `[{"op":"frobnicate","path":"/name","value":"x"}]`,
		"no-op":            `[{"path":"/name","value":"x"}]`,
		"no-path":          `[{"op":"replace","value":"x"}]`,
		"no-value":         `[{"op":"replace","path":"/name"}]`,
		"path-number":      `[{"op":"replace","path":5,"value":"x"}]`,
		"object":           `{"op":"replace","path":"/name","value":"x"}`,
		"empty-list":       `[]`,
		"null-op":          `[null]`,
		"uuid":             `[{"op":"replace","path":"/uuid","value":"00000000-0000-0000-0000-000000000000"}]`,
		"project":          `[{"op":"replace","path":"/project_id","value":"p2"}]`,
		"labels-null":      `[{"op":"replace","path":"/labels","value":null}]`,
		"labels-string":    `[{"op":"replace","path":"/labels","value":"x"}]`,
		"labels-nested":    `[{"op":"replace","path":"/labels","value":{"a":{"b":1}}}]`,
		"label-merge-key":  `[{"op":"add","path":"/labels/<<","value":"*x"}]`,
		"remove-missing":   `[{"op":"remove","path":"/labels/nope"}]`,
		"remove-mandatory": `[{"op":"remove","path":"/image_id"}]`,
		"node-count-str":   `[{"op":"replace","path":"/node_count","value":"3"}]`,
		"node-count-neg":   `[{"op":"replace","path":"/node_count","value":-1}]`,
		"node-count-big":   `[{"op":"replace","path":"/node_count","value":9223372036854775808}]`,
		"node-count-float": `[{"op":"replace","path":"/node_count","value":1.5}]`,
		"health":           `[{"op":"replace","path":"/health_status","value":"HEALTHY"},{"op":"replace","path":"/health_status_reason","value":{"a":"\u0000"}}]`,
		"min-max":          `[{"op":"replace","path":"/min_node_count","value":5},{"op":"replace","path":"/max_node_count","value":2}]`,
		"node-labels":      `[{"op":"add","path":"/node_labels","value":{"kubernetes.io/x":"y","a/b/c":"d"}}]`,
		"node-taints":      `[{"op":"add","path":"/node_taints","value":[{"key":"k","effect":"Nope"},"x",null]}]`,
		"hard-limit":       `[{"op":"replace","path":"/hard_limit","value":-5}]`,
		"valid-name":       `[{"op":"replace","path":"/name","value":"fz-renamed"}]`,
	}
	for pn, p := range patches {
		routes := []string{"PATCH /v1/clustertemplates/{t}", "PATCH /v1/clusters/{c}"}
		if strings.HasPrefix(pn, "node-") || pn == "min-max" || pn == "remove-missing" || pn == "root" || pn == "dotdot" || pn == "escaped-slash" || pn == "object" {
			routes = append(routes, "PATCH /v1/clusters/{c}/nodegroups/{n}")
		}
		if pn == "hard-limit" || pn == "root" || pn == "dotdot" || pn == "project" || pn == "object" || pn == "null-op" {
			routes = append(routes, "PATCH /v1/quotas/{p}/{r}")
		}
		for _, r := range routes {
			who := uint8(member)
			if strings.Contains(r, "quotas") {
				who = admin
			}
			slug := strings.ToLower(strings.Fields(r)[0]) + strings.NewReplacer("/v1/", "-", "/", "-", "{", "", "}", "").Replace(strings.Fields(r)[1])
			add(slug+"-patch-"+pn, r, who, "1.10", "", "", p)
		}
	}

	// Clusters, actions, nodegroups, quotas, certificates: wrong types.
	values := map[string]string{"null": "null", "string": `"3"`, "float": "1.5", "huge": "9223372036854775808", "object": `{}`}
	for vn, v := range values {
		for _, f := range []string{"node_count", "master_count", "docker_volume_size", "create_timeout", "labels", "merge_labels", "keypair", "master_lb_enabled", "floating_ip_enabled", "flavor_id", "fixed_network"} {
			add(fmt.Sprintf("post-clusters-%s-%s", f, vn), "POST /v1/clusters", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template_id":%q,%q:%s}`, fzTemplate, f, v))
		}
		add("post-clusters-template-"+vn, "POST /v1/clusters", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template_id":%s}`, v))
		for _, f := range []string{"node_count", "nodes_to_remove", "nodegroup"} {
			add(fmt.Sprintf("post-resize-%s-%s", f, vn), "POST /v1/clusters/{c}/actions/resize", member, "1.10", "", "", fmt.Sprintf(`{"node_count":1,%q:%s}`, f, v))
		}
		for _, f := range []string{"cluster_template", "max_batch_size", "nodegroup"} {
			add(fmt.Sprintf("post-upgrade-%s-%s", f, vn), "POST /v1/clusters/{c}/actions/upgrade", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template":%q,%q:%s}`, fzTemplate2, f, v))
		}
		for _, f := range []string{"name", "node_count", "min_node_count", "max_node_count", "labels", "node_labels", "node_taints", "role", "flavor_id", "image_id", "merge_labels", "docker_volume_size"} {
			add(fmt.Sprintf("post-nodegroups-%s-%s", f, vn), "POST /v1/clusters/{c}/nodegroups", member, "1.10", "", "", fmt.Sprintf(`{"name":"fz-ng2",%q:%s}`, f, v))
		}
		for _, f := range []string{"project_id", "resource", "hard_limit"} {
			add(fmt.Sprintf("post-quotas-%s-%s", f, vn), "POST /v1/quotas", admin, "", "", "", fmt.Sprintf(`{"project_id":"p7","resource":"Cluster","hard_limit":2,%q:%s}`, f, v))
		}
		for _, f := range []string{"cluster_uuid", "csr", "ca_cert_type"} {
			add(fmt.Sprintf("post-certificates-%s-%s", f, vn), "POST /v1/certificates", member, "", "", "", fmt.Sprintf(`{"cluster_uuid":%q,"csr":"x",%q:%s}`, fzCluster, f, v))
		}
	}
	// Accepted requests, so that fuzzing starts from inputs that commit.
	add("post-clusters-valid", "POST /v1/clusters", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template_id":%q,"name":"fz-c2","node_count":1}`, fzTemplate))
	add("post-clusters-zero-1.9", "POST /v1/clusters", member, "1.9", "", "", fmt.Sprintf(`{"cluster_template_id":%q,"node_count":0}`, fzTemplate))
	add("post-resize-valid", "POST /v1/clusters/{c}/actions/resize", member, "1.10", "", "", `{"node_count":2}`)
	add("post-upgrade-valid", "POST /v1/clusters/{c}/actions/upgrade", member, "1.10", "", "", fmt.Sprintf(`{"cluster_template":%q}`, fzTemplate2))
	add("post-nodegroups-valid", "POST /v1/clusters/{c}/nodegroups", member, "1.10", "", "", `{"name":"fz-ng3","node_count":1,"node_labels":{"a":"b"},"node_taints":[{"key":"k","value":"v","effect":"NoSchedule"}]}`)
	add("post-quotas-valid", "POST /v1/quotas", admin, "", "", "", `{"project_id":"p9","resource":"Cluster","hard_limit":3}`)
	add("delete-clusters-valid", "DELETE /v1/clusters/{c}", member, "1.10", fzCluster, "", "")
	add("delete-nodegroups-valid", "DELETE /v1/clusters/{c}/nodegroups/{n}", member, "1.10", "", fzNodeGroup, "")
	add("delete-clustertemplates-in-use", "DELETE /v1/clustertemplates/{t}", member, "", fzTemplate, "", "")
	add("delete-quotas-valid", "DELETE /v1/quotas/{p}/{r}", admin, "", "p9", "Cluster", "")
	return append(out, headerSeeds()...)
}

var seedName = regexp.MustCompile(`[^a-z0-9.-]+`)

// The seed corpus of FuzzWriteRoutes is checked in (testdata/fuzz, where
// go test runs it as part of the package's tests) and is what fuzzSeeds
// says: -update rewrites it. Files go test -fuzz adds (failing inputs
// named by their hash) are kept.
func TestFuzzWriteRoutesSeeds(t *testing.T) {
	dir := filepath.Join("testdata", "fuzz", "FuzzWriteRoutes")
	seen := map[string]bool{}
	for _, s := range fuzzSeeds() {
		name := seedName.ReplaceAllString(strings.ToLower(s.name), "-")
		if seen[name] {
			t.Fatalf("two seeds named %s", name)
		}
		seen[name] = true
		data := fmt.Sprintf("go test fuzz v1\nbyte(%q)\nbyte(%q)\nstring(%q)\nstring(%q)\nstring(%q)\nstring(%q)\n[]byte(%q)\n", s.route, s.who, s.mv, s.id1, s.id2, s.headers, s.body)
		file := filepath.Join(dir, name)
		if *update {
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(file, []byte(data), 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		if got, err := os.ReadFile(file); err != nil || string(got) != data {
			t.Errorf("%s is stale or missing: run go test ./restapi -run TestFuzzWriteRoutesSeeds -update", file)
		}
	}
}
