package restapi

import (
	"bytes"
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/config"
	"github.com/go-git/go-git/v5/plumbing"
	gitobject "github.com/go-git/go-git/v5/plumbing/object"
	githttp "github.com/go-git/go-git/v5/plumbing/transport/http"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/giteatest"
	"github.com/openkeel/keel/review"
)

// person is a Gitea user without admin rights who may push to the
// repository (a collaborator), as the platform team's members are.
type person struct {
	name, password string
	srv            *giteatest.Server
}

func newPerson(t *testing.T, srv *giteatest.Server, repo, name string) *person {
	t.Helper()
	p := &person{name: name, password: "pw-" + name + "-0123456789", srv: srv}
	srv.Do(t, http.MethodPost, "/api/v1/admin/users", map[string]any{
		"username": name, "email": name + "@example.org", "password": p.password, "must_change_password": false}, nil)
	srv.Do(t, http.MethodPut, fmt.Sprintf("/api/v1/repos/%s/%s/collaborators/%s", giteatest.User, repo, name),
		map[string]any{"permission": "write"}, nil)
	return p
}

// do calls Gitea's API as the person.
func (p *person) do(t *testing.T, method, path string, body, out any) {
	t.Helper()
	b, _ := json.Marshal(body)
	req, err := http.NewRequest(method, p.srv.URL+path, bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	req.SetBasicAuth(p.name, p.password)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("gitea %s %s as %s: %s: %s", method, path, p.name, resp.Status, buf.String())
	}
	if out != nil {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Fatal(err)
		}
	}
}

// pushBranch clones main, lets edit change the checkout, commits it as the
// person and pushes it to a new branch; it returns the commit.
func (p *person) pushBranch(t *testing.T, clone, branch string, edit func(dir string)) string {
	t.Helper()
	return p.push(t, clone, "main", branch, edit)
}

// pushOnto adds a commit to the person's branch.
func (p *person) pushOnto(t *testing.T, clone, branch string, edit func(dir string)) string {
	t.Helper()
	return p.push(t, clone, branch, branch, edit)
}

func (p *person) push(t *testing.T, clone, from, branch string, edit func(dir string)) string {
	t.Helper()
	ctx := context.Background()
	dir := t.TempDir()
	auth := &githttp.BasicAuth{Username: p.name, Password: p.password}
	r, err := git.PlainCloneContext(ctx, dir, false, &git.CloneOptions{URL: clone, Auth: auth,
		ReferenceName: plumbing.NewBranchReferenceName(from), SingleBranch: true})
	if err != nil {
		t.Fatal(err)
	}
	edit(dir)
	wt, err := r.Worktree()
	if err != nil {
		t.Fatal(err)
	}
	if err := wt.AddWithOptions(&git.AddOptions{All: true}); err != nil {
		t.Fatal(err)
	}
	h, err := wt.Commit(p.name+"'s change", &git.CommitOptions{
		Author: &gitobject.Signature{Name: p.name, Email: p.name + "@example.org", When: time.Now()}})
	if err != nil {
		t.Fatal(err)
	}
	spec := config.RefSpec(h.String() + ":" + plumbing.NewBranchReferenceName(branch).String())
	if err := r.PushContext(ctx, &git.PushOptions{RefSpecs: []config.RefSpec{spec}, Auth: auth}); err != nil {
		t.Fatal(err)
	}
	return h.String()
}

// openPullRequest opens a pull request of branch into main as the person.
func (p *person) openPullRequest(t *testing.T, repo, branch string) (number int64, payload map[string]any) {
	t.Helper()
	var pr map[string]any
	p.do(t, http.MethodPost, fmt.Sprintf("/api/v1/repos/%s/%s/pulls", giteatest.User, repo),
		map[string]any{"head": branch, "base": "main", "title": p.name + ": " + branch}, &pr)
	return int64(pr["number"].(float64)), pr
}

// clusterFolder is the checkout's folder of the only cluster named name.
func clusterFolder(t *testing.T, dir, project, name string) string {
	t.Helper()
	m, err := filepath.Glob(filepath.Join(dir, intent.ProjectsDir, project, "clusters", name+"-*"))
	if err != nil || len(m) != 1 {
		t.Fatalf("cluster %s in the checkout: %v %v", name, m, err)
	}
	return m[0]
}

// replaceInFile edits a checkout's file; the old text must be there.
func replaceInFile(t *testing.T, file, old, new string) {
	t.Helper()
	data, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(data), old) {
		t.Fatalf("%s lacks %q:\n%s", file, old, data)
	}
	if err := os.WriteFile(file, []byte(strings.Replace(string(data), old, new, 1)), 0o644); err != nil {
		t.Fatal(err)
	}
}

// hookServer serves keel's webhook with checks running; syncs counts the
// fetches it asked for.
func hookServer(t *testing.T, secret string, pulls *review.PullChecks) (url string, syncs chan struct{}) {
	t.Helper()
	syncs = make(chan struct{}, 1)
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { defer close(done); _ = pulls.Run(ctx) }()
	hs := httptest.NewServer(review.Webhook(secret, syncs, pulls))
	t.Cleanup(func() { hs.Close(); cancel(); <-done })
	return hs.URL, syncs
}

// deliver posts a pull_request event as Gitea sends it (its headers, the
// body signed with secret; "" leaves it unsigned) and returns the status.
func deliver(t *testing.T, url, secret string, body []byte) int {
	t.Helper()
	req, err := http.NewRequest(http.MethodPost, url, bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Gitea-Event", "pull_request")
	req.Header.Set("X-GitHub-Event", "pull_request")
	if secret != "" {
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		sum := hex.EncodeToString(mac.Sum(nil))
		req.Header.Set("X-Gitea-Signature", sum)
		req.Header.Set("X-Hub-Signature-256", "sha256="+sum)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// pullEventBody is Gitea's pull_request payload (the fields keel reads and
// a few it does not) for a pull request Gitea answered with pr.
func pullEventBody(t *testing.T, action string, pr map[string]any) []byte {
	t.Helper()
	b, err := json.Marshal(map[string]any{"action": action, "number": pr["number"], "pull_request": pr,
		"repository": map[string]any{"full_name": giteatest.User + "/clusters"}})
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// vetStatus waits (at most a minute) for keel/vet to leave pending on sha.
func vetStatus(t *testing.T, srv *giteatest.Server, repo, sha string) (state, description string) {
	t.Helper()
	deadline := time.Now().Add(time.Minute)
	for {
		var combined struct {
			Statuses []struct {
				Status      string `json:"status"`
				Context     string `json:"context"`
				Description string `json:"description"`
			} `json:"statuses"`
		}
		// The combined status holds the latest of each context.
		srv.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/%s/commits/%s/status", giteatest.User, repo, sha), nil, &combined)
		sts := combined.Statuses
		for _, s := range sts {
			if s.Context == review.VetContext && s.Status != "pending" {
				return s.Status, s.Description
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("no keel/vet verdict on %s after a minute: %+v", sha, sts)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// comments are the bodies of a pull request's comments.
func comments(t *testing.T, srv *giteatest.Server, repo string, number int64) []string {
	t.Helper()
	var cs []struct {
		Body string `json:"body"`
	}
	srv.Do(t, http.MethodGet, fmt.Sprintf("/api/v1/repos/%s/%s/issues/%d/comments", giteatest.User, repo, number), nil, &cs)
	var out []string
	for _, c := range cs {
		out = append(out, c.Body)
	}
	return out
}
