package restapi

import (
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/review"
	"github.com/openkeel/keel/schemas"
)

// TestReviewHandmadePullRequest: pull requests a person opens on a real
// Gitea (not keel's review branches) get, through the signed webhook, one
// comment with keel plan's result and the commit status keel/vet: success
// for a valid resize (node_count edited, output re-rendered with keel's
// compiler as `keel compile` does), failure naming the label for an
// invalid label value (the comment also flags its output as stale: it
// edited the intent without re-rendering).
func TestReviewHandmadePullRequest(t *testing.T) {
	rv := newReviewAPI(t)
	a := rv.a
	tm := a.template(member, "t1", nil)
	a.cluster(member, "prod-a", tm.UUID, 2)

	const secret = "webhook-secret-for-the-test"
	pulls := review.NewPullChecks(rv.forge, a.store, nil)
	url, _ := hookServer(t, secret, pulls)
	alice := newPerson(t, rv.srv, "clusters", "alice")

	t.Run("valid resize", func(t *testing.T) {
		sha := alice.pushBranch(t, rv.clone, "alice/resize", func(dir string) {
			folder := clusterFolder(t, dir, "p1", "prod-a")
			replaceInFile(t, filepath.Join(folder, "nodegroups", "default-worker.yaml"), "node_count: 2", "node_count: 5")
			rerender(t, dir, folder)
		})
		n, pr := alice.openPullRequest(t, "clusters", "alice/resize")
		if code := deliver(t, url, secret, pullEventBody(t, "opened", pr)); code != http.StatusAccepted {
			t.Fatalf("webhook: %d, want 202", code)
		}
		state, desc := vetStatus(t, rv.srv, "clusters", sha)
		if state != "success" {
			t.Fatalf("keel/vet %s %q, want success", state, desc)
		}
		cs := comments(t, rv.srv, "clusters", n)
		if len(cs) != 1 {
			t.Fatalf("%d comments, want one: %q", len(cs), cs)
		}
		t.Logf("keel's comment:\n%s", cs[0])
		for _, want := range []string{"## keel plan", "prod-a", "in place", "replicas", "## keel vet", "No problems", sha[:12]} {
			if !strings.Contains(cs[0], want) {
				t.Errorf("comment lacks %q:\n%s", want, cs[0])
			}
		}
		if strings.Contains(cs[0], "keel plan failed") || strings.Contains(cs[0], "no longer matches") || strings.Contains(cs[0], "Warnings") {
			t.Errorf("comment:\n%s", cs[0])
		}
		// A redelivery of the same head adds nothing.
		if code := deliver(t, url, secret, pullEventBody(t, "synchronized", pr)); code != http.StatusAccepted {
			t.Fatalf("redelivery: %d", code)
		}
		if state, _ := vetStatus(t, rv.srv, "clusters", sha); state != "success" || len(comments(t, rv.srv, "clusters", n)) != 1 {
			t.Fatalf("after a redelivery: %s, %d comments", state, len(comments(t, rv.srv, "clusters", n)))
		}
	})

	t.Run("invalid label value", func(t *testing.T) {
		sha := alice.pushBranch(t, rv.clone, "alice/bad-label", func(dir string) {
			folder := clusterFolder(t, dir, "p1", "prod-a")
			replaceInFile(t, filepath.Join(folder, intent.ClusterFile), "labels:\n", "labels:\n  auto_healing_enabled: \"perhaps\"\n")
		})
		n, pr := alice.openPullRequest(t, "clusters", "alice/bad-label")
		if code := deliver(t, url, secret, pullEventBody(t, "opened", pr)); code != http.StatusAccepted {
			t.Fatalf("webhook: %d, want 202", code)
		}
		state, desc := vetStatus(t, rv.srv, "clusters", sha)
		if state != "failure" || !strings.Contains(desc, "auto_healing_enabled") {
			t.Fatalf("keel/vet %s %q, want failure naming auto_healing_enabled", state, desc)
		}
		cs := comments(t, rv.srv, "clusters", n)
		if len(cs) != 1 || !strings.Contains(cs[0], "## keel plan") || !strings.Contains(cs[0], "auto_healing_enabled") {
			t.Fatalf("comments %q, want one with the plan and the violation", cs)
		}
		// Edited intent, output not re-rendered: the comment says the plan
		// is of the committed output.
		if !strings.Contains(cs[0], "no longer matches") {
			t.Errorf("comment does not flag the stale output:\n%s", cs[0])
		}
	})
}

// rerender writes a cluster folder's rendered output afresh, as `keel
// compile` does in a checkout (a node count changes no file's presence).
func rerender(t *testing.T, dir, folder string) {
	t.Helper()
	tree := os.DirFS(dir).(intent.Tree)
	cat, err := schemas.SiteCatalogue(tree)
	if err != nil {
		t.Fatal(err)
	}
	rel, _ := filepath.Rel(dir, folder)
	fresh, problems, err := repo.Staleness(tree, filepath.ToSlash(rel), cat)
	if err != nil || len(problems) == 0 {
		t.Fatalf("re-rendering: %v, problems %v (want the edit to make the output stale)", err, problems)
	}
	for f, data := range fresh {
		if err := os.WriteFile(filepath.Join(folder, intent.RenderedDir, filepath.FromSlash(f)), data.Bytes(), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
