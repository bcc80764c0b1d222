package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
)

// POST /hooks/git with a valid GitHub signature or GitLab token makes keel
// fetch the Git server at once; a bad one is a 401 and fetches nothing. The
// fetch interval is an hour, so only the webhook explains a sync.
func TestGitWebhookTriggersSync(t *testing.T) {
	const secret = "s3cret"
	remote := newGitServer(t)
	in, sc := startKeelRemote(t, remote, time.Hour, secret)
	tmpl := createTemplate(t, sc, "before")
	name := func() string {
		got, err := clustertemplates.Get(context.Background(), sc, tmpl.UUID).Extract()
		if err != nil {
			t.Fatal(err)
		}
		return got.Name
	}
	hook := func(header, value, body string) int {
		t.Helper()
		req, _ := http.NewRequest(http.MethodPost, in.URL+"/hooks/git", strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		if header != "" {
			req.Header.Set(header, value)
		}
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	sign := func(key, body string) string {
		m := hmac.New(sha256.New, []byte(key))
		m.Write([]byte(body))
		return "sha256=" + hex.EncodeToString(m.Sum(nil))
	}

	pushEdit(t, remote, "rename the template", func(work string) {
		renameTemplateInGit(t, work, tmpl.ProjectID, tmpl.UUID, "before", "after")
	})
	body := `{"ref":"refs/heads/main"}`
	for _, bad := range [][2]string{
		{"X-Hub-Signature-256", sign("wrong", body)},
		{"X-Hub-Signature-256", "sha256=zz"},
		{"X-Gitlab-Token", "wrong"},
		{"", ""},
	} {
		if code := hook(bad[0], bad[1], body); code != http.StatusUnauthorized {
			t.Fatalf("webhook with %s %q: %d, want 401", bad[0], bad[1], code)
		}
	}
	// The read model follows the local repository every second: had a bad
	// call synced, the rename would show by now.
	time.Sleep(2 * time.Second)
	if got := name(); got != "before" {
		t.Fatalf("template name %q after unauthenticated webhooks, want before", got)
	}

	if code := hook("X-Hub-Signature-256", sign(secret, body), body); code != http.StatusAccepted {
		t.Fatalf("webhook with a good GitHub signature: %d, want 202", code)
	}
	waitFor(t, 15*time.Second, "the GitHub webhook to bring the rename", func() bool { return name() == "after" })

	pushEdit(t, remote, "rename the template again", func(work string) {
		renameTemplateInGit(t, work, tmpl.ProjectID, tmpl.UUID, "after", "from-gitlab")
	})
	if code := hook("X-Gitlab-Token", secret, body); code != http.StatusAccepted {
		t.Fatalf("webhook with the GitLab token: %d, want 202", code)
	}
	waitFor(t, 15*time.Second, "the GitLab webhook to bring the rename", func() bool { return name() == "from-gitlab" })
}
