package github

import (
	"testing"

	"github.com/openkeel/keel/internal/testing/forgetest"
)

// The adapter's tests replay recorded exchanges (testdata/README.md): JSON
// bodies from GitHub's REST API documentation examples, served by an
// httptest.Server, not a live GitHub. The server is reached as a GitHub
// Enterprise Server, so paths carry its /api/v3 prefix.

const token = "ghp_16C7e42F292c6912E7710c838347Ae178B4a"

var auth = forgetest.Auth{Header: "Authorization", Value: "Bearer " + token}

// replay is the adapter on octocat/Hello-World of a server replaying ex.
func replay(t *testing.T, ex ...forgetest.Exchange) *Forge {
	t.Helper()
	r := forgetest.New(t, auth, ex...)
	f, err := New(r.URL, "octocat", "Hello-World", token)
	if err != nil {
		t.Fatal(err)
	}
	return f
}
