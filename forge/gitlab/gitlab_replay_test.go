package gitlab

import (
	"testing"

	"github.com/openkeel/keel/internal/testing/forgetest"
)

// The adapter's tests replay recorded exchanges (testdata/README.md): JSON
// bodies from GitLab's REST API documentation examples, served by an
// httptest.Server, not a live GitLab.

const (
	token = "glpat-example-token"
	// project is the documentation's project, reached by its full path.
	project = "/api/v4/projects/my-group%2Fmy-project"
)

var auth = forgetest.Auth{Header: "PRIVATE-TOKEN", Value: token}

// replay is the adapter on my-group/my-project of a server replaying ex.
func replay(t *testing.T, ex ...forgetest.Exchange) *Forge {
	t.Helper()
	r := forgetest.New(t, auth, ex...)
	f, err := New(r.URL, "my-group/my-project", token)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
