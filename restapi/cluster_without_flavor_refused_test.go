package restapi

import (
	"testing"
)

// A cluster whose machines would have no flavor (neither the request nor
// its template gives master_flavor_id or flavor_id) is a 400 naming the
// field, and nothing is committed: CAPO could never make its machines, and
// the cluster would otherwise wait in CREATE_IN_PROGRESS until
// create_timeout.
func TestClusterWithoutFlavorRefused(t *testing.T) {
	a := newTestAPI(t)
	template := func(name string, drop string) string {
		b := map[string]any{"name": name, "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "m1.medium",
			"master_flavor_id": "m1.large", "external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
		delete(b, drop)
		r := a.do(member, "", "POST", "/v1/clustertemplates", b)
		if r.status != 201 {
			t.Fatalf("template %s: %d %s", name, r.status, r.body)
		}
		return r.json(t)["uuid"].(string)
	}
	noMaster, noWorker := template("no-master-flavor", "master_flavor_id"), template("no-flavor", "flavor_id")
	for _, tc := range []struct {
		name string
		body map[string]any
		want string // "" = accepted
	}{
		{"no master flavor anywhere", map[string]any{"cluster_template_id": noMaster},
			"Unable to find flavor None. The cluster has no master_flavor_id: give one in the request or in its cluster template no-master-flavor."},
		{"no worker flavor anywhere", map[string]any{"cluster_template_id": noWorker},
			"Unable to find flavor None. The cluster has no flavor_id: give one in the request or in its cluster template no-flavor."},
		{"master flavor in the request", map[string]any{"cluster_template_id": noMaster, "master_flavor_id": "m1.large"}, ""},
		{"worker flavor in the request", map[string]any{"cluster_template_id": noWorker, "flavor_id": "m1.medium"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.want == "" {
				if r := a.do(member, "", "POST", "/v1/clusters", tc.body); r.status != 202 {
					t.Fatalf("status %d, want 202: %s", r.status, r.body)
				}
				return
			}
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "", "POST", "/v1/clusters", tc.body), 400, tc.want)
			})
		})
	}
}
