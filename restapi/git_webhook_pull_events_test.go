package restapi

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

// TestGitWebhookPullEvents: which verified pull_request deliveries queue a
// check: a person's pull request into main when opened, pushed to or
// reopened; not keel's own (its branch or its marker), not another base,
// not other actions; a full queue answers 503 for the forge to redeliver.
func TestGitWebhookPullEvents(t *testing.T) {
	const secret = "s3cret"
	event := func(action, head, base, body string) []byte {
		b, _ := json.Marshal(map[string]any{"action": action, "number": 3, "pull_request": map[string]any{
			"number": 3, "body": body, "head": map[string]any{"ref": head, "sha": "abc"}, "base": map[string]any{"ref": base}}})
		return b
	}
	for _, tc := range []struct {
		name   string
		body   []byte
		full   bool
		status int
		queued int
	}{
		{"opened", event("opened", "alice/x", "main", ""), false, http.StatusAccepted, 1},
		{"GitHub synchronize", event("synchronize", "alice/x", "main", ""), false, http.StatusAccepted, 1},
		{"Gitea synchronized", event("synchronized", "alice/x", "main", ""), false, http.StatusAccepted, 1},
		{"reopened", event("reopened", "alice/x", "main", ""), false, http.StatusAccepted, 1},
		{"closed", event("closed", "alice/x", "main", ""), false, http.StatusAccepted, 0},
		{"edited", event("edited", "alice/x", "main", ""), false, http.StatusAccepted, 0},
		{"into another branch", event("opened", "alice/x", "release", ""), false, http.StatusAccepted, 0},
		{"keel's branch", event("opened", "keel/review/req-1", "main", ""), false, http.StatusAccepted, 0},
		{"keel's marker", event("opened", "x", "main", "plan\n"+reviewMarker+`{"object":"projects/p/clusters/a-kube-1"} -->`), false, http.StatusAccepted, 0},
		{"not a pull request", []byte(`{"action":"opened"}`), false, http.StatusBadRequest, 0},
		{"queue full", event("opened", "alice/x", "main", ""), true, http.StatusServiceUnavailable, PullQueue},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pulls := NewPullChecks(nil, nil, nil)
			for tc.full && pulls.Enqueue(PullEvent{Number: 99}) {
			}
			mac := hmac.New(sha256.New, []byte(secret))
			mac.Write(tc.body)
			req := httptest.NewRequest(http.MethodPost, "/hooks/git", bytes.NewReader(tc.body))
			req.Header.Set("X-GitHub-Event", "pull_request")
			req.Header.Set("X-Hub-Signature-256", "sha256="+hex.EncodeToString(mac.Sum(nil)))
			w := httptest.NewRecorder()
			GitWebhook(secret, make(chan struct{}, 1), pulls).ServeHTTP(w, req)
			if w.Code != tc.status || len(pulls.jobs) != tc.queued {
				t.Fatalf("status %d (%s), %d queued; want %d, %d", w.Code, w.Body, len(pulls.jobs), tc.status, tc.queued)
			}
		})
	}
}
