package main

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/restapi"
)

// The API renders with the repository's site.cue, as keel compile does:
// after a create on a repository with a site default, --check finds
// nothing stale and the output carries the default.
func TestCompileCheckAgreesWithAPIUnderSiteFile(t *testing.T) {
	a := newAPIRepo(t, map[string][]byte{"site.cue": []byte("site: defaults: boot_volume_size: \"50\"\n")}, restapi.Config{})
	tm := a.post("/v1/clustertemplates", `{"name":"t1","coe":"kubernetes","image_id":"ubuntu","flavor_id":"m1","master_flavor_id":"m1","labels":{"kube_tag":"v1.33.4"}}`, 201)
	a.post("/v1/clusters", `{"name":"c1","cluster_template_id":"`+tm["uuid"].(string)+`","node_count":1}`, 202)
	if rendered := a.renderedCluster(); !strings.Contains(rendered, "size: 50") {
		t.Fatalf("the API rendered without the site default boot_volume_size:\n%s", rendered)
	}
	if out, err := run(t, "compile", "--repo", a.dir, "--check"); err != nil {
		t.Fatalf("keel compile --check: %v\n%s", err, out)
	}
}
