package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/internal/gitstore"
	"github.com/openkeel/keel/internal/readmodel"
	"github.com/openkeel/keel/internal/version"
	"github.com/openkeel/keel/restapi"
)

// The API renders with the repository's site.cue, as keel compile does:
// after a create on a repository with a site default, --check finds
// nothing stale and the output carries the default.
func TestCompileCheckAgreesWithAPIUnderSiteFile(t *testing.T) {
	dir := t.TempDir()
	repoDir := filepath.Join(dir, "repo.git")
	store, err := gitstore.Open(repoDir)
	if err != nil {
		t.Fatal(err)
	}
	commitFiles(t, store, map[string][]byte{"site.cue": []byte("site: defaults: boot_volume_size: \"50\"\n")})
	ctx := context.Background()
	db, err := readmodel.Open(ctx, filepath.Join(dir, "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if err := db.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(restapi.New(restapi.Config{
		Store: store, DB: db, Auth: restapi.NoAuth{DefaultProject: "p1", Admin: true}, ClusterClass: version.ClusterClassName(),
	}))
	defer srv.Close()
	var tmplUUID string
	for _, r := range []struct{ path, body string }{
		{"/v1/clustertemplates", `{"name":"t1","coe":"kubernetes","image_id":"ubuntu","flavor_id":"m1","master_flavor_id":"m1","labels":{"kube_tag":"v1.33.4"}}`},
		{"/v1/clusters", `{"name":"c1","cluster_template_id":"TEMPLATE","node_count":1}`},
	} {
		req, _ := http.NewRequest("POST", srv.URL+r.path, strings.NewReader(strings.Replace(r.body, "TEMPLATE", tmplUUID, 1)))
		req.Header.Set("Content-Type", "application/json")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode >= 300 {
			t.Fatalf("POST %s: %d", r.path, resp.StatusCode)
		}
		if tmplUUID == "" {
			loc := resp.Header.Get("Location")
			tmplUUID = loc[strings.LastIndex(loc, "/")+1:]
		}
	}
	sn, err := store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := clusterDirs(snapshotTree{sn})
	if err != nil || len(dirs) != 1 {
		t.Fatalf("cluster folders %v %v", dirs, err)
	}
	rendered, err := sn.ReadFile(dirs[0] + "/rendered/cluster.yaml")
	if err != nil || !strings.Contains(string(rendered), "size: 50") {
		t.Fatalf("the API rendered without the site default boot_volume_size (%v):\n%s", err, rendered)
	}
	if out, err := run(t, "compile", "--repo", repoDir, "--check"); err != nil {
		t.Fatalf("keel compile --check: %v\n%s", err, out)
	}
}
