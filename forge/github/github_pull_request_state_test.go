package github

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestPullRequestState: a pull request is merged when merged_at is set
// (GitHub says "closed" for it too), closed when closed without it, open
// otherwise; a merged one names its merge commit. Recordings of the "Get a
// pull request" example.
func TestPullRequestState(t *testing.T) {
	for _, tc := range []struct {
		recording   string
		state       forge.State
		mergeCommit string
	}{
		{"testdata/pull-open.json", forge.Open, ""},
		{"testdata/pull-merged.json", forge.Merged, "e5bd3914e2e596debea16f433f57875b5b90bcd6"},
		{"testdata/pull-closed.json", forge.Closed, ""},
	} {
		t.Run(tc.recording, func(t *testing.T) {
			f := replay(t, forgetest.Exchange{
				Method: http.MethodGet, Path: "/api/v3/repos/octocat/Hello-World/pulls/1347", Recording: tc.recording,
			})
			got, err := f.PullRequest(context.Background(), 1347)
			if err != nil {
				t.Fatal(err)
			}
			if got.Number != 1347 || got.Head != "new-topic" || got.State != tc.state || got.MergeCommit != tc.mergeCommit {
				t.Errorf("got %+v, want number 1347, head new-topic, state %s, merge commit %q", *got, tc.state, tc.mergeCommit)
			}
		})
	}
}
