package restapi

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"path"
	"strings"
	"testing"

	"github.com/go-git/go-git/v5/plumbing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/schemas"
)

// writeRoutes are the API's write routes. {t} {c} {n} {p} {r} {f} are a
// template, cluster, nodegroup, quota project and resource and federation:
// the fuzzer's first ident replaces the first of them, its second ident the
// second, and an empty ident is the fixture's (so most inputs reach the
// handler's logic and not only its lookups).
var writeRoutes = []struct{ method, path string }{
	{"POST", "/v1/clustertemplates"},
	{"PATCH", "/v1/clustertemplates/{t}"},
	{"DELETE", "/v1/clustertemplates/{t}"},
	{"POST", "/v1/clusters"},
	{"PATCH", "/v1/clusters/{c}"},
	{"DELETE", "/v1/clusters/{c}"},
	{"POST", "/v1/clusters/{c}/actions/resize"},
	{"POST", "/v1/clusters/{c}/actions/upgrade"},
	{"POST", "/v1/clusters/{c}/nodegroups"},
	{"PATCH", "/v1/clusters/{c}/nodegroups/{n}"},
	{"DELETE", "/v1/clusters/{c}/nodegroups/{n}"},
	{"POST", "/v1/quotas"},
	{"PATCH", "/v1/quotas/{p}/{r}"},
	{"DELETE", "/v1/quotas/{p}/{r}"},
	{"POST", "/v1/certificates"},
	{"PATCH", "/v1/certificates/{c}"},
	{"POST", "/v1/federations"},
	{"PATCH", "/v1/federations/{f}"},
	{"DELETE", "/v1/federations/{f}"},
	{"PATCH", "/v1/credentials/{c}"},
}

// Fixture names: the objects an empty ident stands for.
const (
	fzTemplate  = "fz-t"
	fzTemplate2 = "fz-t2" // the upgrade target
	fzCluster   = "fz-c"
	fzNodeGroup = "fz-ng"
)

var fzDefaults = map[string]string{"{t}": fzTemplate, "{c}": fzCluster, "{n}": fzNodeGroup, "{p}": "p1", "{r}": "Cluster", "{f}": "fz-f"}

var fzCallers = []caller{member, admin, reader, member2}

// notImplemented are the routes keel answers 501 by design (docs/api.md,
// difference 14): not a server fault.
var notImplemented = map[string]bool{"POST /v1/federations": true}

// createRoutes always commit when they answer 2xx.
var createRoutes = map[string]bool{"POST /v1/clustertemplates": true, "POST /v1/clusters": true, "POST /v1/clusters/{c}/nodegroups": true, "POST /v1/quotas": true}

// fuzzServer is one API shared by the inputs a fuzzing process runs: its
// repository grows as inputs are accepted, as a real one does.
var fuzzServer *testAPI

func (a *testAPI) ensureFuzzFixtures() {
	a.t.Helper()
	ctx := context.Background()
	for _, name := range []string{fzTemplate, fzTemplate2} {
		if ts, _ := a.db.FindTemplates(ctx, readmodel.Scope{ProjectID: member.project}, false, name); len(ts) == 0 {
			kube := map[string]string{fzTemplate: "v1.33.4", fzTemplate2: "v1.34.1"}[name]
			a.template(member, name, map[string]string{"kube_tag": kube})
		}
	}
	cs, _ := a.db.FindClusters(ctx, readmodel.Scope{ProjectID: member.project}, fzCluster)
	if len(cs) == 0 || !cs[0].InGit {
		if len(cs) != 0 { // being deleted: the name is free again once it is gone
			a.db.Sync(ctx, a.store) //nolint:errcheck // best effort
		}
		ts, _ := a.db.FindTemplates(ctx, readmodel.Scope{ProjectID: member.project}, false, fzTemplate)
		if len(ts) == 1 {
			r := a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{"name": fzCluster, "cluster_template_id": ts[0].UUID, "master_count": 1, "node_count": 1})
			if r.status != http.StatusAccepted {
				return // the quota may be used up by accepted inputs: inputs then see a 404
			}
		}
		cs, _ = a.db.FindClusters(ctx, readmodel.Scope{ProjectID: member.project}, fzCluster)
	}
	if len(cs) != 1 {
		return
	}
	hasNG := false
	for _, ng := range cs[0].NodeGroups {
		hasNG = hasNG || ng.Name == fzNodeGroup
	}
	if !hasNG {
		a.complete(cs[0].UUID)
		a.do(member, "1.10", "POST", "/v1/clusters/"+fzCluster+"/nodegroups", map[string]any{"name": fzNodeGroup, "node_count": 1})
		a.complete(cs[0].UUID)
	} else if !strings.HasSuffix(cs[0].Result.Status, "_COMPLETE") {
		a.complete(cs[0].UUID) // actions refuse a cluster in progress
	}
}

// fuzzTarget is the request target of a route: path idents are sent as a
// client would (bytes a request line cannot carry percent-encoded, the
// rest, "../" and "%2e%2e" included, as is).
//
// On DELETE routes the deleted object's default is a name no fixture has:
// deleting the fixtures would make every later input recreate them (an
// input naming them, as the seeds delete-*-valid do, still deletes them).
func fuzzTarget(method, p, id1, id2 string) string {
	ids := []string{id1, id2}
	last := ""
	if method == "DELETE" {
		last = p[strings.LastIndex(p, "{"):]
	}
	i := 0
	for _, ph := range []string{"{t}", "{c}", "{n}", "{p}", "{r}", "{f}"} {
		for strings.Contains(p, ph) {
			at := strings.Index(p, ph)
			// The first placeholder in the path takes id1, the next id2.
			first := at
			for _, other := range []string{"{t}", "{c}", "{n}", "{p}", "{r}", "{f}"} {
				if j := strings.Index(p, other); j >= 0 && j < first {
					first = j
				}
			}
			if first != at {
				break
			}
			v := fzDefaults[ph]
			if ph == last {
				v += "-victim"
			}
			if i < len(ids) && ids[i] != "" {
				v = ids[i]
			}
			i++
			p = p[:at] + escapeTarget(v) + p[at+len(ph):]
		}
	}
	return p
}

func escapeTarget(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c <= ' ' || c >= 0x7f || c == '#' {
			fmt.Fprintf(&b, "%%%02X", c)
			continue
		}
		b.WriteByte(c)
	}
	return b.String()
}

// clean keeps what an HTTP header value can carry.
func cleanHeader(s string) string {
	return strings.Map(func(r rune) rune {
		if r < ' ' || r == 0x7f || r > 0x7e {
			return -1
		}
		return r
	}, s)
}

// FuzzWriteRoutes sends any body, microversion and path idents to every
// write route of one API and checks what must hold whatever the input:
// no 5xx (beyond the routes keel answers 501 by design), a Magnum-format
// error for every refusal, HEAD unmoved by a refused request, at most one
// commit for an accepted one (exactly one for a create), and after each
// commit the read model at HEAD and every cluster it touched current, as
// `keel compile --check` checks it. The seed corpus is
// testdata/fuzz/FuzzWriteRoutes (written by TestFuzzWriteRoutesSeeds).
func FuzzWriteRoutes(f *testing.F) {
	if fuzzServer == nil {
		// With an age identity, as keel serve has one: clusters get key
		// material and certificates can be signed.
		kr, _, err := secrets.GenerateKeyring()
		if err != nil {
			f.Fatal(err)
		}
		fuzzServer = newTestAPI(f, func(c *Config) {
			c.Secrets = &repo.Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.org/v3"}}
		})
		fuzzServer.ensureFuzzFixtures()
	}
	a := fuzzServer
	f.Cleanup(func() { expectRepositoryHealthy(f, a.store.Dir()) })
	f.Fuzz(func(t *testing.T, route, who uint8, mv, id1, id2, headers string, body []byte) {
		rt := writeRoutes[int(route)%len(writeRoutes)]
		key := rt.method + " " + rt.path
		a.t = t
		defer func() { a.t = f }()
		a.ensureFuzzFixtures()
		target := fuzzTarget(rt.method, rt.path, id1, id2)
		c := fzCallers[int(who)%len(fzCallers)]
		var raw bytes.Buffer
		fmt.Fprintf(&raw, "%s %s HTTP/1.1\r\nHost: keel\r\nContent-Type: application/json\r\nContent-Length: %d\r\n", rt.method, target, len(body))
		for _, h := range fuzzHeaders(c, mv, headers) {
			fmt.Fprintf(&raw, "%s: %s\r\n", h[0], h[1])
		}
		raw.WriteString("\r\n")
		raw.Write(body)
		req, err := http.ReadRequest(bufio.NewReader(&raw))
		if err != nil {
			return // Go's HTTP server answers 400 itself before keel sees it
		}
		before, err := a.store.Head()
		if err != nil {
			t.Fatal(err)
		}
		rec := httptest.NewRecorder()
		a.api.ServeHTTP(rec, req)
		after, err := a.store.Head()
		if err != nil {
			t.Fatal(err)
		}
		desc := fmt.Sprintf("%s %s (as %s, version %q, headers %q, body %.300q)", rt.method, target, c.user, mv, headers, body)
		status := rec.Code
		switch {
		case status == http.StatusNotImplemented && notImplemented[key]:
		case status >= 500:
			t.Fatalf("%s: %d %s", desc, status, rec.Body.Bytes())
		case status >= 400:
			var e struct {
				Errors []struct {
					Status int    `json:"status"`
					Title  string `json:"title"`
				} `json:"errors"`
			}
			if err := json.Unmarshal(rec.Body.Bytes(), &e); err != nil || len(e.Errors) != 1 || e.Errors[0].Status != status {
				t.Fatalf("%s: %d without a Magnum error body: %s", desc, status, rec.Body.Bytes())
			}
		}
		if status >= 400 {
			if after != before {
				t.Fatalf("%s: refused with %d but HEAD moved %s → %s", desc, status, before, after)
			}
			return
		}
		if after == before {
			if createRoutes[key] {
				t.Fatalf("%s: %d without a commit", desc, status)
			}
			return
		}
		cm, err := a.store.Repo().CommitObject(after)
		if err != nil {
			t.Fatal(err)
		}
		if len(cm.ParentHashes) != 1 || cm.ParentHashes[0] != before {
			t.Fatalf("%s: %d moved HEAD by more than one commit (%s → %s)", desc, status, before, after)
		}
		a.checkConsistent(t, desc, before)
	})
}

// checkConsistent checks HEAD after a commit: the read model has
// projected it, every document the commit wrote reads back, and every
// cluster it touched compiles to its committed output.
func (a *testAPI) checkConsistent(t *testing.T, desc string, before plumbing.Hash) {
	t.Helper()
	head, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	var projected string
	if err := a.db.X().Get(&projected, a.db.X().Rebind(`SELECT value FROM meta WHERE key = 'projected_revision'`)); err != nil || projected != head.Commit().String() {
		t.Fatalf("%s: the read model projected %q, HEAD is %s (%v)", desc, projected, head.Commit(), err)
	}
	old, err := a.store.SnapshotAt(before)
	if err != nil {
		t.Fatal(err)
	}
	changed, err := gitstore.ChangedPaths(old, head)
	if err != nil {
		t.Fatal(err)
	}
	cat, err := schemas.SiteCatalogue(head)
	if err != nil {
		t.Fatal(err)
	}
	dirs := map[string]bool{}
	for _, p := range changed {
		if !inLayout(p) {
			t.Fatalf("%s: committed %q, outside the repository's documented layout", desc, p)
		}
		if !head.Exists(p) {
			continue
		}
		switch {
		case intent.IsTemplateFile(p):
			if _, err := intent.ReadTemplate(head, p); err != nil {
				t.Fatalf("%s: committed template %s does not read back: %v", desc, p, err)
			}
		case intent.IsQuotaFile(p):
			if _, err := intent.ReadQuota(head, p); err != nil {
				t.Fatalf("%s: committed quota %s does not read back: %v", desc, p, err)
			}
		}
		if dir, ok := intent.ClusterDirOfPath(p); ok && head.Exists(path.Join(dir, intent.ClusterFile)) {
			dirs[dir] = true
		}
	}
	for dir := range dirs {
		if _, problems, err := repo.Staleness(head, dir, cat); err != nil || len(problems) > 0 {
			t.Fatalf("%s: cluster %s after the commit: keel compile --check would say %v %v", desc, dir, problems, err)
		}
	}
}
