package restapi

import (
	"net/http"
	"testing"
)

// Below microversion 1.10 a node_count of 0 is Magnum's
// ZeroNodeCountNotSupported (400, the same text) on every route that takes
// it: cluster create, cluster PATCH and resize; resize checks it before
// looking the cluster up, as Magnum does. From 1.10 on it is accepted, and
// nodegroup create accepts it at 1.9 too (Magnum has no check there).
func TestZeroNodeCountBelowMicroversion110(t *testing.T) {
	const want = "Resizing a nodegroup to zero is not supported in the provided microversion."
	a := newTestAPI(t)
	tmpl := a.template(member, "k8s", nil)
	id := a.cluster(member, "c1", tmpl.UUID, 1)
	a.complete(id)
	create := func(name string) map[string]any {
		return map[string]any{"name": name, "cluster_template_id": tmpl.UUID, "node_count": 0}
	}
	zeroPatch := `[{"op":"replace","path":"/node_count","value":0}]`
	for _, tc := range []struct {
		name, mv, method, path string
		body                   any
		status                 int
	}{
		{"create without a microversion", "", "POST", "/v1/clusters", create("z0"), 400},
		{"create at 1.9", "1.9", "POST", "/v1/clusters", create("z1"), 400},
		{"patch at 1.9", "1.9", "PATCH", "/v1/clusters/c1", zeroPatch, 400},
		{"resize at 1.9", "1.9", "POST", "/v1/clusters/c1/actions/resize", `{"node_count": 0}`, 400},
		{"resize of an unknown cluster at 1.9", "1.9", "POST", "/v1/clusters/nope/actions/resize", `{"node_count": 0}`, 400},
		{"create at 1.10", "1.10", "POST", "/v1/clusters", create("z2"), 202},
		{"nodegroup create at 1.9", "1.9", "POST", "/v1/clusters/c1/nodegroups", map[string]any{"name": "ng0", "node_count": 0}, 202},
		{"resize at 1.10", "1.10", "POST", "/v1/clusters/c1/actions/resize", `{"node_count": 0}`, 202},
		{"patch at 1.10", "1.10", "PATCH", "/v1/clusters/c1", zeroPatch, 202},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.status != http.StatusAccepted {
				a.expectNoCommit(func() {
					expectError(t, a.do(member, tc.mv, tc.method, tc.path, tc.body), tc.status, want)
				})
				return
			}
			if r := a.do(member, tc.mv, tc.method, tc.path, tc.body); r.status != tc.status {
				t.Fatalf("%d %s, want %d", r.status, r.body, tc.status)
			}
			a.complete(id)
		})
	}
}
