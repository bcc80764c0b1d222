package restapi

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/status"
)

// testAPI is a keel API on a temporary Git store and SQLite read model,
// without a management cluster: enough for every handler test.
type testAPI struct {
	t     testing.TB
	srv   *httptest.Server
	store *gitstore.Store
	db    *readmodel.DB
	api   *Server
}

// Callers the tests use. Roles are given literally, as Keystone expands
// implied roles before they reach keel.
type caller struct{ project, user, roles string }

var (
	member  = caller{"p1", "u1", "member,reader"}
	member2 = caller{"p2", "u2", "member,reader"}
	reader  = caller{"p1", "u3", "reader"}
	admin   = caller{"admin-project", "admin-user", "admin,member,reader"}
)

func newTestAPI(t testing.TB, mutate ...func(*Config)) *testAPI {
	t.Helper()
	dir := t.TempDir()
	store, err := gitstore.Open(filepath.Join(dir, "repo.git"))
	if err != nil {
		t.Fatal(err)
	}
	db, err := readmodel.Open(context.Background(), filepath.Join(dir, "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Sync(context.Background(), store); err != nil {
		t.Fatal(err)
	}
	cfg := Config{Store: store, DB: db, Auth: auth.NoAuth{DefaultProject: "p1"}, ClusterClass: "magnum-v0.1.0"}
	for _, m := range mutate {
		m(&cfg)
	}
	api := New(cfg)
	srv := httptest.NewServer(api)
	t.Cleanup(srv.Close)
	return &testAPI{t: t, srv: srv, store: store, db: db, api: api}
}

// client is a gophercloud client acting as who at microversion mv ("" =
// none, i.e. 1.1).
func (a *testAPI) client(who caller, mv string) *gophercloud.ServiceClient {
	return &gophercloud.ServiceClient{
		ProviderClient: &gophercloud.ProviderClient{HTTPClient: *a.srv.Client()},
		Endpoint:       a.srv.URL + "/v1/",
		Type:           "container-infra",
		Microversion:   mv,
		MoreHeaders:    map[string]string{"X-Project-Id": who.project, "X-User-Id": who.user, "X-Roles": who.roles},
	}
}

// response is a raw HTTP answer.
type response struct {
	status int
	header http.Header
	body   []byte
}

func (r response) json(t testing.TB) map[string]any {
	t.Helper()
	var m map[string]any
	if err := json.Unmarshal(r.body, &m); err != nil {
		t.Fatalf("body is not a JSON object: %v: %s", err, r.body)
	}
	return m
}

// do sends a raw request as who at microversion mv. body may be a string
// (sent as is), nil, or anything JSON-encodable.
func (a *testAPI) do(who caller, mv, method, path string, body any) response {
	a.t.Helper()
	var rd io.Reader
	switch b := body.(type) {
	case nil:
	case string:
		rd = strings.NewReader(b)
	default:
		data, err := json.Marshal(b)
		if err != nil {
			a.t.Fatal(err)
		}
		rd = bytes.NewReader(data)
	}
	req, err := http.NewRequest(method, a.srv.URL+path, rd)
	if err != nil {
		a.t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json")
	req.Header.Set("X-Project-Id", who.project)
	req.Header.Set("X-User-Id", who.user)
	req.Header.Set("X-Roles", who.roles)
	if mv != "" {
		req.Header.Set("OpenStack-API-Version", "container-infra "+mv)
	}
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	data, _ := io.ReadAll(resp.Body)
	return response{status: resp.StatusCode, header: resp.Header, body: data}
}

func (a *testAPI) head() string {
	a.t.Helper()
	h, err := a.store.Head()
	if err != nil {
		a.t.Fatal(err)
	}
	return h.String()
}

// commitCount is the number of commits on the branch.
func (a *testAPI) commitCount() int {
	a.t.Helper()
	h, err := a.store.Head()
	if err != nil {
		a.t.Fatal(err)
	}
	n := 0
	for {
		c, err := a.store.Repo().CommitObject(h)
		if err != nil {
			a.t.Fatal(err)
		}
		n++
		if len(c.ParentHashes) == 0 {
			return n
		}
		h = c.ParentHashes[0]
	}
}

// lastCommit returns HEAD's message.
func (a *testAPI) lastCommit() string {
	a.t.Helper()
	h, err := a.store.Head()
	if err != nil {
		a.t.Fatal(err)
	}
	c, err := a.store.Repo().CommitObject(h)
	if err != nil {
		a.t.Fatal(err)
	}
	return c.Message
}

// expectError checks a Magnum error answer: status, the errors[0] shape,
// and a detail containing want.
func expectError(t *testing.T, r response, status int, want string) {
	t.Helper()
	if r.status != status {
		t.Fatalf("status %d, want %d: %s", r.status, status, r.body)
	}
	var body struct {
		Errors []struct {
			Status int    `json:"status"`
			Code   string `json:"code"`
			Title  string `json:"title"`
			Detail string `json:"detail"`
		} `json:"errors"`
	}
	if err := json.Unmarshal(r.body, &body); err != nil || len(body.Errors) != 1 {
		t.Fatalf("not a Magnum error body: %s", r.body)
	}
	e := body.Errors[0]
	if e.Status != status || !strings.Contains(e.Detail, want) {
		t.Fatalf("error %d %q, want %d containing %q", e.Status, e.Detail, status, want)
	}
	// openstack coe prints only the title: it must say what the detail says.
	if e.Code != "" && !strings.Contains(e.Title, strings.TrimSuffix(want, ".")) {
		t.Fatalf("error title %q does not contain %q (detail %q)", e.Title, want, e.Detail)
	}
	if status < 500 && status != http.StatusNotAcceptable && status != http.StatusMethodNotAllowed && e.Code != "client" {
		t.Fatalf("code %q, want client", e.Code)
	}
}

// expectNoCommit runs fn and fails if it moved HEAD.
func (a *testAPI) expectNoCommit(fn func()) {
	a.t.Helper()
	before := a.head()
	fn()
	if after := a.head(); after != before {
		a.t.Fatalf("HEAD moved %s → %s:\n%s", before, after, a.lastCommit())
	}
}

// template creates a template in who's project.
func (a *testAPI) template(who caller, name string, labels map[string]string) *clustertemplates.ClusterTemplate {
	a.t.Helper()
	if labels == nil {
		labels = map[string]string{"kube_tag": "v1.33.4"}
	}
	tmpl, err := clustertemplates.Create(context.Background(), a.client(who, ""), clustertemplates.CreateOpts{
		Name: name, COE: "kubernetes", ImageID: "ubuntu-2204-kube", FlavorID: "m1.medium",
		MasterFlavorID: "m1.large", ExternalNetworkID: "public", Labels: labels,
	}).Extract()
	if err != nil {
		a.t.Fatalf("creating template %s: %v", name, err)
	}
	return tmpl
}

// cluster creates a cluster in who's project and returns its uuid.
func (a *testAPI) cluster(who caller, name, template string, nodes int) string {
	a.t.Helper()
	masters := 1
	id, err := clusters.Create(context.Background(), a.client(who, "1.10"), clusters.CreateOpts{
		Name: name, ClusterTemplateID: template, MasterCount: &masters, NodeCount: &nodes,
	}).Extract()
	if err != nil {
		a.t.Fatalf("creating cluster %s: %v", name, err)
	}
	return id
}

// complete makes the read model see the cluster as created and reachable,
// as the observer would report it.
func (a *testAPI) complete(uuid string) {
	a.t.Helper()
	ctx := context.Background()
	v, err := a.db.GetClusterByUUID(ctx, uuid)
	if err != nil || v == nil {
		a.t.Fatalf("cluster %s: %v", uuid, err)
	}
	version := v.Labels["kube_tag"]
	o := &status.Observation{
		Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
		APIAddress: "https://192.0.2.10:6443", COEVersion: version, NodeGroups: map[string]status.Replicas{},
		ObservedAt: time.Now(),
	}
	for _, ng := range v.NodeGroups {
		r := status.Replicas{Desired: ng.NodeCount, Current: ng.NodeCount, Ready: ng.NodeCount, UpToDate: ng.NodeCount, Exists: true,
			SpecVersion: version, MachineVersions: []string{version}}
		if ng.Role == "master" {
			o.ControlPlane = r
		} else {
			o.NodeGroups[ng.Name] = r
		}
	}
	a.db.SetObservation(ctx, uuid, o)
	a.db.Applied(ctx, uuid, desiredRevision(a.t, a.db, uuid), 0, nil)
}

func desiredRevision(t testing.TB, db *readmodel.DB, uuid string) string {
	t.Helper()
	var rev string
	if err := db.X().Get(&rev, db.X().Rebind(`SELECT desired_revision FROM clusters WHERE uuid = ?`), uuid); err != nil {
		t.Fatal(err)
	}
	return rev
}
