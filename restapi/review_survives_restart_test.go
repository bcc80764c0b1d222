package restapi

import (
	"context"
	"net/http"
	"testing"
)

// A review outlives the process that opened it: another keel process on
// the same Git server (a restarted one, or another replica) shows the
// change as awaiting review and refuses a second change of the object,
// from the pull requests it finds open on the forge.
func TestReviewSurvivesRestart(t *testing.T) {
	rv := newReviewAPI(t)
	a := rv.a
	a.commitSite(`site: review: [{projects: ["p1"], operations: ["resize"]}]`)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "prod-a", tm.UUID, 2)
	if r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 5}`); r.status != http.StatusAccepted {
		t.Fatalf("resize under review: %d %s", r.status, r.body)
	}
	open := rv.review.Pending.Open()
	if len(open) != 1 {
		t.Fatalf("open reviews %+v, want one", open)
	}

	b, review := rv.start(t)
	if got := b.do(member, "1.10", "GET", "/v1/clusters/"+id, nil).json(t)["status_reason"]; got == "awaiting review: "+open[0].URL {
		t.Fatal("the new process knew the review before asking the forge")
	}
	if review.Poll(context.Background(), b.api.cfg.Log) {
		t.Fatal("Poll saw a merge; nothing was merged")
	}
	if got := b.do(member, "1.10", "GET", "/v1/clusters/"+id, nil).json(t)["status_reason"]; got != "awaiting review: "+open[0].URL {
		t.Fatalf("after a restart: status_reason %v, want awaiting review: %s", got, open[0].URL)
	}
	expectError(t, b.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 4}`),
		http.StatusConflict, "awaiting review")
}
