package main

import (
	"context"
	"strings"
	"testing"

	"github.com/openkeel/keel/internal/openstack"
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
	a := newAPIRepo(t, nil, restapi.Config{Cloud: renamingCloud{}})
	tm := a.post("/v1/clustertemplates", `{"name":"t1","coe":"kubernetes","image_id":"ubuntu","flavor_id":"3","master_flavor_id":"4","labels":{"kube_tag":"v1.33.4","auto_scaling_enabled":"true"}}`, 201)
	a.post("/v1/clusters", `{"name":"c1","cluster_template_id":"`+tm["uuid"].(string)+`","node_count":2}`, 202)
	a.post("/v1/clusters/c1/actions/resize", `{"node_count":3}`, 202)
	// The facts are in use (else this test would prove nothing).
	if rendered := a.renderedCluster(); !strings.Contains(rendered, "uuid-of-ubuntu") || !strings.Contains(rendered, "flavor-4") {
		t.Fatalf("rendered cluster without the resolved facts:\n%s", rendered)
	}
	if out, err := run(t, "compile", "--repo", a.dir, "--check"); err != nil {
		t.Fatalf("keel compile --check: %v\n%s", err, out)
	}
}
