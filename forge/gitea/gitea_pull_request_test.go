package gitea_test

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/forge/gitea"
	"github.com/openkeel/keel/internal/testing/giteatest"
)

// TestPullRequestLifecycle drives the adapter against a real Gitea: open a
// pull request of a pushed branch, comment, set a status, then see it as
// merged (with its merge commit) or closed once people act on it.
func TestPullRequestLifecycle(t *testing.T) {
	srv := giteatest.Start(t)
	t.Logf("gitea %s set up and answering in %s", giteatest.Version, srv.StartTime)
	clone := srv.CreateRepo(t, "clusters")
	work := pushBranches(t, clone, srv.Token, "review-a", "review-b")

	f, err := gitea.FromRepoURL(clone, srv.Token)
	if err != nil {
		t.Fatal(err)
	}
	ctx := context.Background()

	a, err := f.OpenPullRequest(ctx, forge.NewPullRequest{Head: "review-a", Base: "main", Title: "resize a", Body: "plan a"})
	if err != nil {
		t.Fatal(err)
	}
	if a.State != forge.Open || a.Number == 0 || !strings.HasPrefix(a.URL, srv.URL+"/") || a.Head != "review-a" {
		t.Fatalf("opened %+v, want an open pull request of review-a on %s", a, srv.URL)
	}
	b, err := f.OpenPullRequest(ctx, forge.NewPullRequest{Head: "review-b", Base: "main", Title: "resize b"})
	if err != nil {
		t.Fatal(err)
	}

	if err := f.Comment(ctx, a.Number, "keel plan: 1 object changes"); err != nil {
		t.Fatal(err)
	}
	var comments []struct{ Body string }
	srv.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/clusters/issues/%d/comments", giteatest.User, a.Number), nil, &comments)
	if len(comments) != 1 || comments[0].Body != "keel plan: 1 object changes" {
		t.Fatalf("comments %+v", comments)
	}

	head := revParse(t, work, "review-a")
	if err := f.SetStatus(ctx, head, forge.Status{State: forge.Success, Context: "keel/vet", Description: "keel vet passed"}); err != nil {
		t.Fatal(err)
	}
	var statuses []struct{ Status, Context string }
	srv.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/clusters/statuses/%s", giteatest.User, head), nil, &statuses)
	if len(statuses) != 1 || statuses[0].Status != "success" || statuses[0].Context != "keel/vet" {
		t.Fatalf("statuses %+v", statuses)
	}

	srv.Merge(t, "clusters", a.Number)
	srv.Do(t, http.MethodPatch, fmt.Sprintf("/api/v1/repos/%s/clusters/pulls/%d", giteatest.User, b.Number),
		map[string]any{"state": "closed"}, nil)

	for _, tc := range []struct {
		number int64
		want   forge.State
	}{{a.Number, forge.Merged}, {b.Number, forge.Closed}} {
		got, err := f.PullRequest(ctx, tc.number)
		if err != nil {
			t.Fatal(err)
		}
		if got.State != tc.want {
			t.Errorf("pull request %d: state %s, want %s", tc.number, got.State, tc.want)
		}
		if (got.MergeCommit != "") != (tc.want == forge.Merged) {
			t.Errorf("pull request %d: merge commit %q in state %s", tc.number, got.MergeCommit, got.State)
		}
	}

	if _, err := f.PullRequest(ctx, 999); !errors.Is(err, forge.ErrNotFound) {
		t.Fatalf("unknown pull request: %v, want forge.ErrNotFound", err)
	}
}

// pushBranches pushes main (one commit) and one branch per name (a commit
// each on top of main, touching different files) to clone.
func pushBranches(t *testing.T, clone, token string, branches ...string) string {
	t.Helper()
	dir := t.TempDir()
	u, err := url.Parse(clone)
	if err != nil {
		t.Fatal(err)
	}
	u.User = url.UserPassword(giteatest.User, token)
	git(t, dir, "init", "-q", "-b", "main")
	write(t, filepath.Join(dir, "README.md"), "clusters\n")
	git(t, dir, "add", ".")
	git(t, dir, "commit", "-q", "-m", "initial")
	git(t, dir, "push", "-q", u.String(), "main")
	for _, b := range branches {
		git(t, dir, "checkout", "-q", "-b", b, "main")
		write(t, filepath.Join(dir, b+".yaml"), "node_count: 3\n")
		git(t, dir, "add", ".")
		git(t, dir, "commit", "-q", "-m", b)
		git(t, dir, "push", "-q", u.String(), b)
	}
	return dir
}

func git(t *testing.T, dir string, args ...string) string {
	t.Helper()
	cmd := exec.Command("git", append([]string{"-c", "user.name=t", "-c", "user.email=t@example.org"}, args...)...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("git %s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out))
}

func revParse(t *testing.T, dir, rev string) string { return git(t, dir, "rev-parse", rev) }

func write(t *testing.T, p, s string) {
	t.Helper()
	if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
		t.Fatal(err)
	}
}
