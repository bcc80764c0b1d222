package restapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openkeel/keel/review"
)

// TestReviewHandmadePullRequestError: a check that cannot run (here the
// Git server has no such pull request to fetch) ends as status error on
// the announced head, naming the reason, and comments nothing.
func TestReviewHandmadePullRequestError(t *testing.T) {
	rv := newReviewAPI(t)
	a := rv.a
	a.template(member, "t1", nil)
	head := a.head()

	const secret = "webhook-secret-for-the-test"
	url, _ := hookServer(t, secret, review.NewPullChecks(rv.forge, a.store, nil))
	pr := map[string]any{"number": 42, "body": "", "head": map[string]any{"ref": "alice/gone", "sha": head},
		"base": map[string]any{"ref": "main"}}
	if code := deliver(t, url, secret, pullEventBody(t, "opened", pr)); code != http.StatusAccepted {
		t.Fatalf("webhook: %d, want 202", code)
	}
	state, desc := vetStatus(t, rv.srv, "clusters", head)
	if state != "error" || !strings.Contains(desc, "could not fetch the pull request") {
		t.Fatalf("keel/vet %s %q, want error saying the fetch failed", state, desc)
	}
}
