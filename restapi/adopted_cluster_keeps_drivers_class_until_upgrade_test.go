package restapi

import (
	"net/http"
	"testing"

	"github.com/openkeel/keel/intent"
)

// A cluster adopted from magnum-cluster-api and still on the driver's
// ClusterClass is resized like any keel cluster (keel owns its counts),
// but adding a nodegroup to it is a 400 that says to upgrade first: keel
// does not know the driver's variables. Nothing is committed.
func TestAdoptedClusterKeepsDriversClassUntilUpgrade(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "t", nil)
	uuid := a.cluster(member, "adopted", tmpl.UUID, 1)
	a.rewriteAsImport(uuid, func(c *intent.Cluster) {
		c.ClusterClass = "magnum-v0.26.2"
		c.Adopted = &intent.Adopted{From: "magnum-cluster-api", Status: "CREATE_COMPLETE", Class: "magnum-v0.26.2",
			Topology: map[string]any{"classRef": map[string]any{"name": "magnum-v0.26.2"}, "version": "v1.33.4",
				"workers": map[string]any{"machineDeployments": []any{map[string]any{"class": "default-worker", "name": "default-worker"}}}}}
	})
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.9", "POST", "/v1/clusters/"+uuid+"/nodegroups", map[string]any{"name": "gpu", "node_count": 1}),
			http.StatusBadRequest, "still runs on ClusterClass magnum-v0.26.2, which it was adopted with from magnum-cluster-api")
	})
	if r := a.do(member, "1.7", "POST", "/v1/clusters/"+uuid+"/actions/resize", map[string]any{"node_count": 3}); r.status != http.StatusAccepted {
		t.Fatalf("resize of an adopted cluster: %d %s", r.status, r.body)
	}
}
