package gitlab

import (
	"context"
	"net/http"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/forgetest"
)

// TestPullRequestState: GitLab's opened and locked are open, merged is
// merged, closed is closed; a merged one names the commit that landed: the
// merge commit, else the squashed commit, else (a fast-forward merge) the
// head itself. Recordings of the "Get single MR" example.
func TestPullRequestState(t *testing.T) {
	for _, tc := range []struct {
		recording   string
		state       forge.State
		mergeCommit string
	}{
		{"testdata/mr-opened.json", forge.Open, ""},
		{"testdata/mr-locked.json", forge.Open, ""},
		{"testdata/mr-merged-commit.json", forge.Merged, "af5b13261899fb2c0db30abdd0af8b07cb44fdc5"},
		{"testdata/mr-merged-squash.json", forge.Merged, "18f3e63d05582537db6d183d9d557be09e1f90c8"},
		{"testdata/mr-merged.json", forge.Merged, "8888888888888888888888888888888888888888"},
		{"testdata/mr-closed.json", forge.Closed, ""},
	} {
		t.Run(tc.recording, func(t *testing.T) {
			f := replay(t, forgetest.Exchange{
				Method: http.MethodGet, Path: project + "/merge_requests/1", Recording: tc.recording,
			})
			got, err := f.PullRequest(context.Background(), 1)
			if err != nil {
				t.Fatal(err)
			}
			if got.Number != 1 || got.Head != "test1" || got.State != tc.state || got.MergeCommit != tc.mergeCommit {
				t.Errorf("got %+v, want number 1, head test1, state %s, merge commit %q", *got, tc.state, tc.mergeCommit)
			}
		})
	}
}
