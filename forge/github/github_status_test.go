package github

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestSetStatus: a status check posts to the commit's statuses with
// GitHub's own state names, which are keel's; an empty description or
// target URL is left out (a recording of the "Create a commit status"
// example).
func TestSetStatus(t *testing.T) {
	const sha = "6dcb09b5b57875f334f61aebed695e2e4193db5e"
	for _, tc := range []struct {
		status forge.Status
		body   string
	}{
		{forge.Status{State: forge.Success, Context: "continuous-integration/jenkins",
			Description: "The build succeeded!", TargetURL: "https://example.com/build/status"},
			`{"state":"success","target_url":"https://example.com/build/status",
				"description":"The build succeeded!","context":"continuous-integration/jenkins"}`},
		{forge.Status{State: forge.Pending, Context: "keel/vet"}, `{"state":"pending","context":"keel/vet"}`},
		{forge.Status{State: forge.Failure, Context: "keel/vet", Description: "2 errors"},
			`{"state":"failure","context":"keel/vet","description":"2 errors"}`},
		{forge.Status{State: forge.Error, Context: "keel/vet"}, `{"state":"error","context":"keel/vet"}`},
	} {
		t.Run(string(tc.status.State), func(t *testing.T) {
			f := replay(t, forgetest.Exchange{
				Method: http.MethodPost, Path: "/api/v3/repos/octocat/Hello-World/statuses/" + sha,
				Body: tc.body, Status: http.StatusCreated, Recording: "testdata/status.json",
			})
			if err := f.SetStatus(context.Background(), sha, tc.status); err != nil {
				t.Fatal(err)
			}
		})
	}
}
