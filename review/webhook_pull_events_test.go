package review

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWebhookPullEvents: which verified pull_request deliveries (and
// GitLab's Merge Request Hooks) queue a check, of which server ref: a
// person's pull request into main when opened, pushed to or reopened; not
// keel's own (its branch or its marker), not another base, not other
// actions; a full queue answers 503 for the forge to redeliver.
func TestWebhookPullEvents(t *testing.T) {
	const secret = "s3cret"
	event := func(action, head, base, body string) []byte {
		b, _ := json.Marshal(map[string]any{"action": action, "number": 3, "pull_request": map[string]any{
			"number": 3, "body": body, "head": map[string]any{"ref": head, "sha": "abc"}, "base": map[string]any{"ref": base}}})
		return b
	}
	mr := func(action, oldrev, source, target string) []byte {
		b, _ := json.Marshal(map[string]any{"object_kind": "merge_request", "object_attributes": map[string]any{
			"iid": 5, "action": action, "oldrev": oldrev, "source_branch": source, "target_branch": target,
			"description": "", "last_commit": map[string]any{"id": "def"}}})
		return b
	}
	for _, tc := range []struct {
		name   string
		body   []byte
		full   bool
		status int
		queued int
		gitlab bool
		ref    string // of the queued check
	}{
		{"opened", event("opened", "alice/x", "main", ""), false, http.StatusAccepted, 1, false, "refs/pull/3/head"},
		{"GitHub synchronize", event("synchronize", "alice/x", "main", ""), false, http.StatusAccepted, 1, false, "refs/pull/3/head"},
		{"Gitea synchronized", event("synchronized", "alice/x", "main", ""), false, http.StatusAccepted, 1, false, "refs/pull/3/head"},
		{"reopened", event("reopened", "alice/x", "main", ""), false, http.StatusAccepted, 1, false, "refs/pull/3/head"},
		{"closed", event("closed", "alice/x", "main", ""), false, http.StatusAccepted, 0, false, ""},
		{"edited", event("edited", "alice/x", "main", ""), false, http.StatusAccepted, 0, false, ""},
		{"into another branch", event("opened", "alice/x", "release", ""), false, http.StatusAccepted, 0, false, ""},
		{"keel's branch", event("opened", "keel/review/req-1", "main", ""), false, http.StatusAccepted, 0, false, ""},
		{"keel's marker", event("opened", "x", "main", "plan\n"+Marker+`{"object":"projects/p/clusters/a-kube-1"} -->`), false, http.StatusAccepted, 0, false, ""},
		{"not a pull request", []byte(`{"action":"opened"}`), false, http.StatusBadRequest, 0, false, ""},
		{"queue full", event("opened", "alice/x", "main", ""), true, http.StatusServiceUnavailable, PullQueue, false, ""},
		{"GitLab open", mr("open", "", "alice/x", "main"), false, http.StatusAccepted, 1, true, "refs/merge-requests/5/head"},
		{"GitLab push", mr("update", "abc", "alice/x", "main"), false, http.StatusAccepted, 1, true, "refs/merge-requests/5/head"},
		{"GitLab reopen", mr("reopen", "", "alice/x", "main"), false, http.StatusAccepted, 1, true, "refs/merge-requests/5/head"},
		{"GitLab title edit", mr("update", "", "alice/x", "main"), false, http.StatusAccepted, 0, true, ""},
		{"GitLab merge", mr("merge", "", "alice/x", "main"), false, http.StatusAccepted, 0, true, ""},
		{"GitLab keel's branch", mr("open", "", "keel/review/r", "main"), false, http.StatusAccepted, 0, true, ""},
		{"GitLab into another branch", mr("open", "", "alice/x", "dev"), false, http.StatusAccepted, 0, true, ""},
		{"GitLab not a merge request", []byte(`{"object_kind":"push"}`), false, http.StatusBadRequest, 0, true, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pulls := NewPullChecks(nil, nil, nil)
			for tc.full && pulls.Enqueue(PullEvent{Number: 99}) {
			}
			mac := hmac.New(sha256.New, []byte(secret))
			mac.Write(tc.body)
			req := httptest.NewRequest(http.MethodPost, "/hooks/git", bytes.NewReader(tc.body))
			if tc.gitlab {
				req.Header.Set("X-Gitlab-Event", "Merge Request Hook")
				req.Header.Set("X-Gitlab-Token", secret)
			} else {
				req.Header.Set("X-GitHub-Event", "pull_request")
				req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
			}
			w := httptest.NewRecorder()
			Webhook(secret, make(chan struct{}, 1), pulls).ServeHTTP(w, req)
			if w.Code != tc.status || len(pulls.jobs) != tc.queued {
				t.Fatalf("status %d (%s), %d queued; want %d, %d", w.Code, w.Body, len(pulls.jobs), tc.status, tc.queued)
			}
			if tc.ref != "" {
				if e := <-pulls.jobs; e.Ref != tc.ref {
					t.Fatalf("queued the check of %s, want %s", e.Ref, tc.ref)
				}
			}
		})
	}
}
