package conformance

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/secrets"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/magnumimport"
)

// Side by side: a Magnum database (schema by magnum-db-manage on MariaDB,
// by Magnum's models on PostgreSQL, where its migrations do not run;
// templates and quotas created through Magnum's own API, clusters and
// nodegroups written as its conductor writes them, CAs made by Magnum's
// own code) is served by Magnum's own API, then imported into keel's
// repository; each object, read with the same Keystone token at the same
// microversion, is the same document on keel's API as on Magnum's, field
// by field, but for the deliberate differences of docs/api.md, each
// listed with its number.
func TestImportAnswersAsMagnumDid(t *testing.T) {
	needTools(t, append(keystoneTools, magnumAPITools...)...)
	for _, db := range sideDatabases(t) {
		t.Run(db.name, func(t *testing.T) { sideBySide(t, db) })
	}
}

func sideBySide(t *testing.T, db sideDatabase) {
	e := sharedEnv(t)
	a, b := sideProject(t, e, db.name+"-side-a"), sideProject(t, e, db.name+"-side-b")
	admin := sideAdmin(t, e, db.name+"-side-a")
	m := db.open(t)
	magnum := startMagnumAPI(t, e, m.URL)
	tmpl := fillThroughMagnum(t, magnum, admin, a, b)
	mdb.FillClusters(t, m, a.project, b.project, tmpl.public, tmpl.heat)
	for _, u := range []sideUser{a, b} { // the creators (certificate:get is theirs)
		m.Exec(t, "UPDATE cluster SET user_id = ? WHERE project_id = ?", u.user, u.project)
	}
	cas := mdb.GeneratedCAs(t)
	mdb.InsertCAs(t, m, mdb.ClusterCAPI, cas)

	reads := sideReads(a, b, tmpl)
	before := fetchAll(t, magnum, reads)
	importInto(t, e, m.URL, a.project, b.project)
	after := fetchAll(t, e.keel.URL, reads)
	if d := unexplained(t, reads, before, after); len(d) > 0 {
		t.Errorf("keel answers otherwise than Magnum did, and docs/api.md does not say why:\n  %s", strings.Join(d, "\n  "))
	}
	// Magnum's API asks its conductor for a cluster's CA (over RabbitMQ),
	// which answers the certificate its store holds, as is: that is the
	// document to compare with.
	ca := fetchAll(t, e.keel.URL, []sideRead{{"/v1/certificates/" + mdb.ClusterCAPI, a}})[0].(map[string]any)
	if ca["pem"] != cas.CA.Certificate {
		t.Errorf("keel's CA of the imported cluster is not the one Magnum's store holds:\n%v\nwant\n%s", ca["pem"], cas.CA.Certificate)
	}
}

// unexplained lists the differences between Magnum's answers and keel's
// that docs/api.md does not list, and logs those it does.
func unexplained(t *testing.T, reads []sideRead, before, after []any) []string {
	var out []string
	for i, r := range reads {
		for _, d := range diffJSON(before[i], after[i]) {
			if why, ok := deliberate(r.path, d); ok {
				t.Logf("%s: %s (%s)", r.path, d, why)
				continue
			}
			out = append(out, r.path+": "+d)
		}
	}
	return out
}

// sideUser is a member of a project of its own.
type sideUser struct{ user, project, token string }

func sideProject(t *testing.T, e *env, name string) sideUser {
	t.Helper()
	ctx := context.Background()
	const pw = "conformance-side-pw"
	if err := e.ks.addUser(ctx, name, pw, name, "member", "reader"); err != nil {
		t.Fatal(err)
	}
	u := sideUser{project: sideID(t, e, "projects", name), user: sideID(t, e, "users", name)}
	var err error
	if u.token, err = e.ks.password(ctx, name, pw, name); err != nil {
		t.Fatal(err)
	}
	return u
}

// sideRead is one GET, as one user.
type sideRead struct {
	path string
	as   sideUser
}

// sideReads are every object of the side-by-side cloud on Magnum's API,
// but the Heat-era template keel leaves out by design (docs/api.md 48) and
// the CA (Magnum's conductor answers it, not its API).
func sideReads(a, b sideUser, tmpl sideTemplates) []sideRead {
	c, h := "/v1/clusters/"+mdb.ClusterCAPI, "/v1/clusters/"+mdb.ClusterHeat
	return []sideRead{
		{"/v1/clustertemplates/" + tmpl.public, a}, {"/v1/clustertemplates/" + tmpl.project, b},
		{c, a}, {c + "/nodegroups", a}, {c + "/nodegroups/default-master", a}, {c + "/nodegroups/default-worker", a},
		{"/v1/quotas/" + a.project + "/Cluster", a}, {"/v1/quotas/" + b.project + "/Cluster", b},
		{h, b}, {h + "/nodegroups", b}, {h + "/nodegroups/default-worker", b},
	}
}

// fetchAll GETs every read at Magnum's newest microversion (Debian's
// Magnum 15 answers up to 1.10), with its base URL replaced by BASE.
func fetchAll(t *testing.T, base string, reads []sideRead) []any {
	t.Helper()
	out := make([]any, len(reads))
	for i, r := range reads {
		req, err := http.NewRequest(http.MethodGet, base+r.path, nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("X-Auth-Token", r.as.token)
		req.Header.Set("OpenStack-API-Version", "container-infra 1.10")
		resp, err := httpClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Fatalf("GET %s%s: %s %s", base, r.path, resp.Status, body)
		}
		if err := json.Unmarshal([]byte(strings.ReplaceAll(string(body), base, "BASE")), &out[i]); err != nil {
			t.Fatalf("GET %s%s: %v", base, r.path, err)
		}
	}
	return out
}

// importInto imports database url into the environment's keel as `keel
// import --repo DATA-DIR/repo.git` does, waits until keel's API shows it,
// and removes the import when the test ends (the rollback docs/migration.md
// describes), so that the suites that follow see none of it.
func importInto(t *testing.T, e *env, url string, projects ...string) {
	t.Helper()
	ctx := context.Background()
	src, err := magnumimport.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	m, err := magnumimport.Read(ctx, src)
	if err != nil {
		t.Fatal(err)
	}
	if m.Keyring, err = secrets.LoadKeyring(filepath.Join(e.dir, "keel")); err != nil {
		t.Fatal(err)
	}
	if _, err := magnumimport.Apply(ctx, e.keel.Store, m); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { dropImport(t, e, projects) })
	if err := e.keel.DB.Sync(ctx, e.keel.Store); err != nil {
		t.Fatal(err)
	}
}

func dropImport(t *testing.T, e *env, projects []string) {
	ctx := context.Background()
	_, err := e.keel.Store.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		var ch []gitstore.Change
		for _, p := range projects {
			ch = append(ch, gitstore.Change{Path: "projects/" + p, Delete: true}, gitstore.Change{Path: "quotas/" + p + ".yaml", Delete: true})
		}
		return &gitstore.Commit{Subject: "conformance: drop the side-by-side import", Author: gitstore.Signature{Name: "conformance", Email: "conformance@keel"},
			Changes: ch}, nil
	})
	if err == nil {
		err = e.keel.DB.Sync(ctx, e.keel.Store)
	}
	deadline := time.Now().Add(30 * time.Second)
	for err == nil && time.Now().Before(deadline) {
		v, gerr := e.keel.DB.GetClusterByUUID(ctx, mdb.ClusterCAPI)
		if err = gerr; err == nil && v == nil {
			return
		}
		time.Sleep(200 * time.Millisecond)
	}
	t.Errorf("removing the side-by-side import: %v", err)
}

// diffJSON lists where b differs from a: "path: magnum → keel".
func diffJSON(a, b any) []string {
	fa, fb := map[string]string{}, map[string]string{}
	flatten("", a, fa)
	flatten("", b, fb)
	var out []string
	for _, k := range union(fa, fb) {
		va, oka := fa[k]
		vb, okb := fb[k]
		switch {
		case !oka:
			out = append(out, fmt.Sprintf("%s: absent → %s", k, vb))
		case !okb:
			out = append(out, fmt.Sprintf("%s: %s → absent", k, va))
		case va != vb:
			out = append(out, fmt.Sprintf("%s: %s → %s", k, va, vb))
		}
	}
	return out
}

func flatten(prefix string, v any, out map[string]string) {
	switch x := v.(type) {
	case map[string]any:
		for k, e := range x {
			flatten(prefix+"/"+k, e, out)
		}
	case []any:
		for i, e := range x {
			flatten(fmt.Sprintf("%s/%d", prefix, i), e, out)
		}
	default:
		b, _ := json.Marshal(x)
		out[prefix] = string(b)
	}
}

func union(a, b map[string]string) []string {
	var keys []string
	for k := range a {
		keys = append(keys, k)
	}
	for k := range b {
		if _, ok := a[k]; !ok {
			keys = append(keys, k)
		}
	}
	slices.Sort(keys)
	return keys
}

// deliberateDiffs are the differences docs/api.md lists (by number), and
// those between Debian's Magnum 15 and 2026.2, which keel follows: object
// matches the read's path, change the difference ("field: magnum → keel").
var deliberateDiffs = []struct {
	object, change *regexp.Regexp
	why            string
}{
	{regexp.MustCompile(`^/v1/clusters/`), regexp.MustCompile(`^/status_reason: `),
		"docs/api.md 44: a read-only record's status_reason says why keel does not manage it"},
	{regexp.MustCompile(`^/v1/clusters/`), regexp.MustCompile(`^/(api_address|coe_version|container_version|(master|node)_addresses/\d+): .* → (null|absent)$`),
		"docs/api.md 46: observed fields, shown for the clusters keel observes"},
	{regexp.MustCompile(`/nodegroups`), regexp.MustCompile(`^(/nodegroups/\d+)?/(stack_id|status|version): `),
		"docs/api.md 45, 46: a read-only cluster's nodegroups show the cluster's stack_id and status"},
	{regexp.MustCompile(`^/v1/`), regexp.MustCompile(`^/labels(_skipped|_added|_overridden)?/container_infra_prefix: "(.*)/" → "(.*)"$`),
		"docs/api.md 47: container_infra_prefix without the Heat convention's trailing slash"},
	{regexp.MustCompile(`^/v1/clusters/` + mdb.ClusterHeat + `$`), regexp.MustCompile(`^/labels_(skipped|added|overridden)/`),
		"docs/api.md 48: its Heat-era template is left out, so there is none to compare its labels with"},
	{regexp.MustCompile(`^/v1/clustertemplates/`), regexp.MustCompile(`^/driver: absent → null$`),
		"not a difference of keel: Magnum 2026.2 templates have a driver, Debian's Magnum 15 has none"},
	{regexp.MustCompile(`/nodegroups/`), regexp.MustCompile(`^/node_(labels|taints): absent → null$`),
		"not a difference of keel: Magnum 2026.2 nodegroups have node_labels and node_taints at every version, Magnum 15 has none"},
}

// deliberate reports why difference d of the object at path is one keel
// makes on purpose.
func deliberate(path, d string) (string, bool) {
	for _, x := range deliberateDiffs {
		if x.object.MatchString(path) && x.change.MatchString(d) {
			return x.why, true
		}
	}
	return "", false
}
