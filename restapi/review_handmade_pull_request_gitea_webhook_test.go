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

// TestReviewHandmadePullRequestGiteaWebhook: with Gitea's own webhook
// pointed at keel (its payload, its signature), a person's pull request is
// checked when opened, and again on each push to it: every head gets its
// comment and its keel/vet status.
func TestReviewHandmadePullRequestGiteaWebhook(t *testing.T) {
	rv := newReviewAPI(t)
	a := rv.a
	tm := a.template(member, "t1", nil)
	a.cluster(member, "prod-a", tm.UUID, 2)

	const secret = "webhook-secret-for-the-test"
	url, _ := hookServer(t, secret, review.NewPullChecks(rv.forge, a.store, nil))
	rv.srv.Do(t, http.MethodPost, fmt.Sprintf("/api/v1/repos/%s/clusters/hooks", giteatest.User), map[string]any{
		"type": "gitea", "active": true, "events": []string{"pull_request", "pull_request_sync"},
		"config": map[string]string{"url": url + "/hooks/git", "content_type": "json", "secret": secret},
	}, nil)
	alice := newPerson(t, rv.srv, "clusters", "alice")

	first := alice.pushBranch(t, rv.clone, "alice/resize", func(dir string) {
		folder := clusterFolder(t, dir, "p1", "prod-a")
		replaceInFile(t, filepath.Join(folder, "nodegroups", "default-worker.yaml"), "node_count: 2", "node_count: 5")
		rerender(t, dir, folder)
	})
	n, _ := alice.openPullRequest(t, "clusters", "alice/resize")
	if state, desc := vetStatus(t, rv.srv, "clusters", first); state != "success" {
		t.Fatalf("keel/vet on the opened head: %s %q, want success", state, desc)
	}

	// A second push to the branch: Gitea sends "synchronized".
	second := alice.pushOnto(t, rv.clone, "alice/resize", func(dir string) {
		folder := clusterFolder(t, dir, "p1", "prod-a")
		replaceInFile(t, filepath.Join(folder, "cluster.yaml"), "labels:\n", "labels:\n  auto_healing_enabled: \"perhaps\"\n")
	})
	if state, desc := vetStatus(t, rv.srv, "clusters", second); state != "failure" || !strings.Contains(desc, "auto_healing_enabled") {
		t.Fatalf("keel/vet on the pushed head: %s %q, want failure naming the label", state, desc)
	}
	cs := comments(t, rv.srv, "clusters", n)
	if len(cs) != 2 || !strings.Contains(cs[0], first) || !strings.Contains(cs[1], second) {
		t.Fatalf("comments %q, want one per head (%s, %s)", cs, first[:12], second[:12])
	}
}
