package restapi

import (
	"net/http"
	"testing"
)

// `replace /node_count null` is Magnum's 400 naming node_count, not a
// panic answered 500, and commits nothing.
func TestClusterPatchNullNodeCountRefused(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "t", nil)
	uuid := a.cluster(member, "c1", tmpl.UUID, 1)
	a.complete(uuid)
	for _, mv := range []string{"", "1.10"} {
		a.expectNoCommit(func() {
			r := a.do(member, mv, "PATCH", "/v1/clusters/"+uuid, `[{"op":"replace","path":"/node_count","value":null}]`)
			expectError(t, r, http.StatusBadRequest, "Invalid input for field/attribute node_count")
		})
	}
}
