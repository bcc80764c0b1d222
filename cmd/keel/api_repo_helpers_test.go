package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/version"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi"
	"github.com/openkeel/keel/restapi/auth"
)

// apiRepo is keel's API (noauth admin of project p1) writing to a bare
// repository, as keel serve does, for comparing its commits with keel
// compile.
type apiRepo struct {
	t     *testing.T
	dir   string // the bare repository
	store *gitstore.Store
	srv   *httptest.Server
}

// newAPIRepo commits seed (if any) to a new bare repository and serves the
// API on it with cfg (e.g. its Cloud; store, read model, auth and class
// are set here).
func newAPIRepo(t *testing.T, seed map[string][]byte, cfg restapi.Config) *apiRepo {
	t.Helper()
	dir := t.TempDir()
	a := &apiRepo{t: t, dir: filepath.Join(dir, "repo.git")}
	var err error
	if a.store, err = gitstore.Open(a.dir); err != nil {
		t.Fatal(err)
	}
	if len(seed) > 0 {
		commitFiles(t, a.store, seed)
	}
	ctx := context.Background()
	db, err := readmodel.Open(ctx, filepath.Join(dir, "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	if err := db.Sync(ctx, a.store); err != nil {
		t.Fatal(err)
	}
	cfg.Store, cfg.DB = a.store, db
	cfg.Auth = auth.NoAuth{DefaultProject: "p1", Admin: true}
	name, err := compiler.ClusterClassName(version.Version)
	if err != nil {
		t.Fatal(err)
	}
	cfg.ClusterClass = name
	a.srv = httptest.NewServer(restapi.New(cfg))
	t.Cleanup(a.srv.Close)
	return a
}

// post sends a JSON body at microversion 1.10 and fails the test unless
// the answer has status want.
func (a *apiRepo) post(p, body string, want int) map[string]any {
	a.t.Helper()
	req, _ := http.NewRequest("POST", a.srv.URL+p, strings.NewReader(body))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("OpenStack-API-Version", "container-infra 1.10")
	resp, err := a.srv.Client().Do(req)
	if err != nil {
		a.t.Fatal(err)
	}
	defer resp.Body.Close()
	var out map[string]any
	_ = json.NewDecoder(resp.Body).Decode(&out)
	if resp.StatusCode != want {
		a.t.Fatalf("POST %s: %d %v", p, resp.StatusCode, out)
	}
	return out
}

// renderedCluster is the rendered Cluster document of the repository's
// only cluster at HEAD.
func (a *apiRepo) renderedCluster() string {
	a.t.Helper()
	sn, err := a.store.SnapshotHead()
	if err != nil {
		a.t.Fatal(err)
	}
	dirs, err := intent.ClusterDirs(sn)
	if err != nil || len(dirs) != 1 {
		a.t.Fatalf("cluster folders %v %v", dirs, err)
	}
	rendered, err := sn.ReadFile(dirs[0] + "/rendered/cluster.yaml")
	if err != nil {
		a.t.Fatal(err)
	}
	return string(rendered)
}
