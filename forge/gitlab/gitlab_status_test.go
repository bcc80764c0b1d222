package gitlab

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestSetStatus: a status check is set on the commit with GitLab's job
// states (pending, success, failed; keel's error is failed too), named
// after the check's context; an empty description or target URL is left
// out; a state keel does not know is refused before any request (a
// recording of the "Set the pipeline status of a commit" example).
func TestSetStatus(t *testing.T) {
	const sha = "18f3e63d05582537db6d183d9d557be09e1f90c8"
	for _, tc := range []struct {
		status forge.Status
		body   string // "" = no request
	}{
		{forge.Status{State: forge.Success, Context: "default", Description: "The build succeeded!",
			TargetURL: "https://gitlab.example.com/janedoe/gitlab-foss/builds/91"},
			`{"state":"success","name":"default","description":"The build succeeded!",
				"target_url":"https://gitlab.example.com/janedoe/gitlab-foss/builds/91"}`},
		{forge.Status{State: forge.Pending, Context: "keel/vet"}, `{"state":"pending","name":"keel/vet"}`},
		{forge.Status{State: forge.Failure, Context: "keel/vet", Description: "2 errors"},
			`{"state":"failed","name":"keel/vet","description":"2 errors"}`},
		{forge.Status{State: forge.Error, Context: "keel/vet"}, `{"state":"failed","name":"keel/vet"}`},
		{forge.Status{State: "skipped", Context: "keel/vet"}, ""},
	} {
		t.Run(string(tc.status.State), func(t *testing.T) {
			var ex []forgetest.Exchange
			if tc.body != "" {
				ex = append(ex, forgetest.Exchange{Method: http.MethodPost, Path: project + "/statuses/" + sha,
					Body: tc.body, Status: http.StatusCreated, Recording: "testdata/status.json"})
			}
			err := replay(t, ex...).SetStatus(context.Background(), sha, tc.status)
			if (err != nil) != (tc.body == "") {
				t.Errorf("error %v, want one: %v", err, tc.body == "")
			}
		})
	}
}
