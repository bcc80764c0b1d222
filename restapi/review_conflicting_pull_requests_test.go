package restapi

import (
	"fmt"
	"net/http"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/internal/giteatest"
	"github.com/openkeel/keel/review"
)

// TestReviewConflictingPullRequests: on a real Gitea, a pull request a
// person opens that changes a cluster keel's own review also changes, or
// that another open pull request changes, gets a comment that names the
// other one (and a status saying so); one on a cluster nobody else
// changes does not; once the other pull request is closed, the next
// check of the head no longer names it.
func TestReviewConflictingPullRequests(t *testing.T) {
	rv := newReviewAPI(t)
	a := rv.a
	a.commitSite(`site: review: [{projects: ["p1"], operations: ["resize"]}]`)
	tm := a.template(member, "t1", nil)
	a.cluster(member, "prod-a", tm.UUID, 2)
	a.cluster(member, "prod-b", tm.UUID, 2)
	if r := a.do(member, "1.10", "POST", "/v1/clusters/prod-a/actions/resize", `{"node_count": 5}`); r.status != http.StatusAccepted {
		t.Fatalf("resize under review: %d %s", r.status, r.body)
	}
	open := rv.review.Pending.Open()
	if len(open) != 1 {
		t.Fatalf("open reviews %+v, want keel's one", open)
	}

	const secret = "webhook-secret-for-the-test"
	pulls := review.NewPullChecks(rv.forge, a.store, nil)
	pulls.Pending = rv.review.Pending
	url, _ := hookServer(t, secret, pulls)
	alice := newPerson(t, rv.srv, "clusters", "alice")
	resize := func(branch, cluster, to string) (sha string, n int64, pr map[string]any) {
		t.Helper()
		sha = alice.pushBranch(t, rv.clone, branch, func(dir string) {
			folder := clusterFolder(t, dir, "p1", cluster)
			replaceInFile(t, filepath.Join(folder, "nodegroups", "default-worker.yaml"), "node_count: 2", "node_count: "+to)
			rerender(t, dir, folder)
		})
		n, pr = alice.openPullRequest(t, "clusters", branch)
		if code := deliver(t, url, secret, pullEventBody(t, "opened", pr)); code != http.StatusAccepted {
			t.Fatalf("webhook: %d, want 202", code)
		}
		return sha, n, pr
	}
	conflictsOf := func(sha string, n int64) (desc, comment string) {
		t.Helper()
		state, desc := vetStatus(t, rv.srv, "clusters", sha)
		if state != "success" {
			t.Fatalf("keel/vet %s %q, want success (a conflict is not a violation)", state, desc)
		}
		cs := comments(t, rv.srv, "clusters", n)
		if len(cs) == 0 {
			t.Fatal("no comment")
		}
		return desc, cs[len(cs)-1]
	}

	shaA, nA := func() (string, int64) { s, n, _ := resize("alice/prod-a", "prod-a", "4"); return s, n }()
	desc, c := conflictsOf(shaA, nA)
	if !strings.Contains(c, "## Conflicts") || !strings.Contains(c, fmt.Sprintf("keel's review #%d", open[0].Number)) || !strings.Contains(c, open[0].URL) {
		t.Errorf("a pull request changing what keel's review changes: comment does not name the review:\n%s", c)
	}
	if !strings.Contains(desc, "another open pull request") {
		t.Errorf("status %q does not mention the conflict", desc)
	}

	shaB1, nB1 := func() (string, int64) { s, n, _ := resize("alice/prod-b-3", "prod-b", "3"); return s, n }()
	if _, c := conflictsOf(shaB1, nB1); strings.Contains(c, "## Conflicts") {
		t.Errorf("the only pull request on prod-b names a conflict:\n%s", c)
	}
	shaB2, nB2, prB2 := resize("alice/prod-b-6", "prod-b", "6")
	if _, c := conflictsOf(shaB2, nB2); !strings.Contains(c, fmt.Sprintf("pull request #%d", nB1)) {
		t.Errorf("a second pull request on prod-b does not name the first (#%d):\n%s", nB1, c)
	}

	// The first closed, the second's next head is checked without it.
	alice.do(t, http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/clusters/pulls/%d", giteatest.User, nB1), map[string]any{"state": "closed"}, nil)
	sha := alice.pushOnto(t, rv.clone, "alice/prod-b-6", func(dir string) {
		folder := clusterFolder(t, dir, "p1", "prod-b")
		replaceInFile(t, filepath.Join(folder, "nodegroups", "default-worker.yaml"), "node_count: 6", "node_count: 7")
		rerender(t, dir, folder)
	})
	if code := deliver(t, url, secret, pullEventBody(t, "synchronized", prB2)); code != http.StatusAccepted {
		t.Fatalf("webhook: %d, want 202", code)
	}
	if desc, c := conflictsOf(sha, nB2); strings.Contains(c, "## Conflicts") || strings.Contains(desc, "another") {
		t.Errorf("after #%d was closed, the next check still names a conflict (%q):\n%s", nB1, desc, c)
	}
}
