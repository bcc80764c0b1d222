package main

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/internal/gitstore"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/readmodel"
	"github.com/openkeel/keel/internal/version"
	"github.com/openkeel/keel/restapi"
)

// renamingCloud resolves flavors and images to values unlike the
// references (the flavor named for its ID, the image's UUID for its name).
type renamingCloud struct{ openstack.Given }

func (renamingCloud) Flavor(_ context.Context, ref string) (*openstack.Flavor, error) {
	return &openstack.Flavor{ID: ref, Name: "flavor-" + ref, VCPUs: 2, RAMMiB: 2048, DiskGiB: 20}, nil
}

func (renamingCloud) Image(_ context.Context, ref string) (*openstack.Image, error) {
	return &openstack.Image{UUID: "uuid-of-" + ref, Name: ref, OSDistro: "ubuntu", HwDiskBus: "scsi"}, nil
}

// What the API commits with OpenStack facts — at create, and re-rendered
// from the recorded facts by a resize — is what keel compile renders:
// --check on the repository finds nothing stale.
func TestCompileCheckAfterAPIWritesWithFacts(t *testing.T) {
	dir := t.TempDir()
	repoDir := filepath.Join(dir, "repo.git")
	store, err := gitstore.Open(repoDir)
	if err != nil {
		t.Fatal(err)
	}
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
		Store: store, DB: db, Auth: restapi.NoAuth{DefaultProject: "p1", Admin: true},
		ClusterClass: version.ClusterClassName(), Cloud: renamingCloud{},
	}))
	defer srv.Close()
	post := func(p, body string, want int) map[string]any {
		t.Helper()
		req, _ := http.NewRequest("POST", srv.URL+p, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("OpenStack-API-Version", "container-infra 1.10")
		resp, err := srv.Client().Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		var out map[string]any
		_ = json.NewDecoder(resp.Body).Decode(&out)
		if resp.StatusCode != want {
			t.Fatalf("POST %s: %d %v", p, resp.StatusCode, out)
		}
		return out
	}
	tm := post("/v1/clustertemplates", `{"name":"t1","coe":"kubernetes","image_id":"ubuntu","flavor_id":"3","master_flavor_id":"4","labels":{"kube_tag":"v1.33.4","auto_scaling_enabled":"true"}}`, 201)
	post("/v1/clusters", `{"name":"c1","cluster_template_id":"`+tm["uuid"].(string)+`","node_count":2}`, 202)
	post("/v1/clusters/c1/actions/resize", `{"node_count":3}`, 202)

	sn, err := store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	dirs, err := clusterDirs(snapshotTree{sn})
	if err != nil || len(dirs) != 1 {
		t.Fatalf("cluster folders %v %v", dirs, err)
	}
	// The facts are in use (else this test would prove nothing).
	rendered, err := sn.ReadFile(dirs[0] + "/rendered/cluster.yaml")
	if err != nil || !strings.Contains(string(rendered), "uuid-of-ubuntu") || !strings.Contains(string(rendered), "flavor-4") {
		t.Fatalf("rendered cluster without the resolved facts (%v):\n%s", err, rendered)
	}
	if out, err := run(t, "compile", "--repo", repoDir, "--check"); err != nil {
		t.Fatalf("keel compile --check: %v\n%s", err, out)
	}
}
