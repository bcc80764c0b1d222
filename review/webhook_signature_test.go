package review

import (
	"bytes"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"net/http"
	"net/http/httptest"
	"testing"
)

// TestWebhookSignature: a pull_request delivery whose signature is
// missing or wrong is refused with 401 and neither queues a check nor
// triggers a fetch; a correctly signed one (GitHub's or Gitea's header) is
// accepted and queued.
func TestWebhookSignature(t *testing.T) {
	const secret = "s3cret"
	body := []byte(`{"action":"opened","number":7,"pull_request":{"number":7,"body":"","head":{"ref":"alice/x","sha":"0123456789abcdef0123456789abcdef01234567"},"base":{"ref":"main"}}}`)
	sign := func(key string, b []byte) string {
		mac := hmac.New(sha256.New, []byte(key))
		mac.Write(b)
		return hex.EncodeToString(mac.Sum(nil))
	}
	for _, tc := range []struct {
		name    string
		headers map[string]string
		want    int
	}{
		{"unsigned", nil, http.StatusUnauthorized},
		{"other secret", map[string]string{"X-Hub-Signature-256": "sha256=" + sign("other", body)}, http.StatusUnauthorized},
		{"other body", map[string]string{"X-Hub-Signature-256": "sha256=" + sign(secret, []byte("{}"))}, http.StatusUnauthorized},
		{"no sha256= prefix", map[string]string{"X-Hub-Signature-256": sign(secret, body)}, http.StatusUnauthorized},
		{"not hex", map[string]string{"X-Gitea-Signature": "zz"}, http.StatusUnauthorized},
		{"wrong GitLab token", map[string]string{"X-Gitlab-Token": "guess"}, http.StatusUnauthorized},
		{"GitHub signature", map[string]string{"X-Hub-Signature-256": "sha256=" + sign(secret, body)}, http.StatusAccepted},
		{"Gitea signature", map[string]string{"X-Gitea-Signature": sign(secret, body)}, http.StatusAccepted},
	} {
		t.Run(tc.name, func(t *testing.T) {
			pulls := NewPullChecks(nil, nil, nil) // not run: the queue shows what was accepted
			syncs := make(chan struct{}, 1)
			h := Webhook(secret, syncs, pulls)
			req := httptest.NewRequest(http.MethodPost, "/hooks/git", bytes.NewReader(body))
			req.Header.Set("X-Gitea-Event", "pull_request")
			for k, v := range tc.headers {
				req.Header.Set(k, v)
			}
			w := httptest.NewRecorder()
			h.ServeHTTP(w, req)
			if w.Code != tc.want {
				t.Fatalf("status %d %s, want %d", w.Code, w.Body, tc.want)
			}
			queued := len(pulls.jobs)
			if want := map[bool]int{true: 1, false: 0}[tc.want == http.StatusAccepted]; queued != want {
				t.Fatalf("%d checks queued, want %d", queued, want)
			}
			if len(syncs) != 0 {
				t.Fatal("a pull_request delivery triggered a fetch")
			}
		})
	}
}
