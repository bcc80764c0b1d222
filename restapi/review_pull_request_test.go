package restapi

import (
	"context"
	"fmt"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/internal/testing/giteatest"
)

// TestReviewPullRequest: under a site.review policy, an API resize opens a
// pull request on a real Gitea (the plan in its body) instead of changing
// main; the cluster says it awaits review; a second change is refused;
// merging the pull request applies the resize; closing another drops it.
func TestReviewPullRequest(t *testing.T) {
	rv := newReviewAPI(t)
	srv, f, review, store, db, api, a := rv.srv, rv.forge, rv.review, rv.a.store, rv.a.db, rv.a.api, rv.a
	ctx := context.Background()

	a.commitSite(`site: review: [{projects: ["p1"], operations: ["resize"]}]`)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "prod-a", tm.UUID, 2) // create is not covered: straight to main
	mainBefore := a.head()

	began := time.Now()
	if r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 5}`); r.status != http.StatusAccepted || r.json(t)["uuid"] != id {
		t.Fatalf("resize under review: %d %s, want Magnum's 202 with the uuid", r.status, r.body)
	}
	t.Logf("API request → pull request opened: %s", time.Since(began))
	if a.head() != mainBefore {
		t.Fatal("a change under review moved main")
	}
	open := review.Pending.Open()
	if len(open) != 1 {
		t.Fatalf("open reviews %+v, want one", open)
	}
	var pr struct {
		Title, Body, State string
		HTMLURL            string `json:"html_url"`
	}
	srv.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/clusters/pulls/%d", giteatest.User, open[0].Number), nil, &pr)
	for _, want := range []string{"## keel plan", "in place", "POST /v1/clusters/prod-a/actions/resize", "u1"} {
		if !strings.Contains(pr.Body, want) {
			t.Errorf("pull request body lacks %q:\n%s", want, pr.Body)
		}
	}
	if strings.Contains(pr.Body, "keel plan failed") {
		t.Errorf("pull request body:\n%s", pr.Body)
	}
	if pr.Title != "cluster prod-a: resize default-worker 2 → 5" || pr.State != "open" {
		t.Errorf("pull request %q %s", pr.Title, pr.State)
	}
	show := a.do(member, "1.10", "GET", "/v1/clusters/"+id, nil).json(t)
	if show["status_reason"] != "awaiting review: "+pr.HTMLURL || show["node_count"] != float64(2) {
		t.Fatalf("cluster under review: status_reason %v node_count %v", show["status_reason"], show["node_count"])
	}
	expectError(t, a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 4}`),
		http.StatusConflict, "awaiting review")

	// Merged through Gitea's API: keel follows main as for any commit.
	merged := time.Now()
	srv.Merge(t, "clusters", open[0].Number)
	if !review.Poll(ctx, api.cfg.Log) {
		t.Fatal("Poll did not see the merge")
	}
	if err := store.Sync(ctx); err != nil {
		t.Fatal(err)
	}
	if err := db.Sync(ctx, store); err != nil {
		t.Fatal(err)
	}
	show = a.do(member, "1.10", "GET", "/v1/clusters/"+id, nil).json(t)
	// The review note is gone; the reason is the usual one of a new
	// revision (no reconciler runs here).
	if reason, _ := show["status_reason"].(string); show["node_count"] != float64(5) || strings.Contains(reason, "review") {
		t.Fatalf("after the merge: node_count %v status_reason %v, want 5 and no review note", show["node_count"], show["status_reason"])
	}
	t.Logf("merge → applied in the read model: %s", time.Since(merged))

	// Closed without merging: the change is dropped, the reason says so.
	if r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 3}`); r.status != http.StatusAccepted {
		t.Fatalf("second resize: %d %s", r.status, r.body)
	}
	open = review.Pending.Open()
	if len(open) != 1 {
		t.Fatalf("open reviews %+v, want one", open)
	}
	srv.Do(t, http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/clusters/pulls/%d", giteatest.User, open[0].Number), map[string]any{"state": "closed"}, nil)
	if review.Poll(ctx, api.cfg.Log) {
		t.Fatal("Poll took a close for a merge")
	}
	if got, err := f.PullRequest(ctx, open[0].Number); err != nil || got.State != forge.Closed {
		t.Fatalf("pull request: %+v %v", got, err)
	}
	show = a.do(member, "1.10", "GET", "/v1/clusters/"+id, nil).json(t)
	if reason, _ := show["status_reason"].(string); show["node_count"] != float64(5) || !strings.HasPrefix(reason, "review closed without merging") {
		t.Fatalf("after the close: node_count %v status_reason %v", show["node_count"], show["status_reason"])
	}
	// The closed review no longer blocks changes.
	if r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 4}`); r.status != http.StatusAccepted {
		t.Fatalf("resize after a closed review: %d %s", r.status, r.body)
	}
}
