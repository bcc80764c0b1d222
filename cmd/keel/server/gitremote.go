package server

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"io"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/restapi"
)

// DefaultGitRemoteInterval is how often keel fetches the Git remote when no
// interval is given.
const DefaultGitRemoteInterval = 30 * time.Second

// followRemote fetches the Git remote every interval, and at once when the
// webhook asks (now), so that commits made on the Git server (a merged
// pull request, a revert) reach the local mirror; Store.Sync then notifies
// the reconciler.
func followRemote(ctx context.Context, store *gitstore.Store, interval time.Duration, now <-chan struct{}, log *slog.Logger) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	out := outage{log: log, level: slog.LevelWarn,
		failing: "following the Git remote; retrying every interval", recovered: "the Git remote is reachable again"}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-now:
		}
		out.report(ctx, store.Sync(ctx))
	}
}

// followReviews asks the forge every interval about the pull requests keel
// opened (restapi.Review.Poll); a merge triggers a fetch at once, so that
// the merged change is applied without waiting for the next fetch.
func followReviews(ctx context.Context, review *restapi.Review, interval time.Duration, syncNow chan<- struct{}, log *slog.Logger) error {
	t := time.NewTicker(interval)
	defer t.Stop()
	// At once on start: the open reviews (from before a restart) show and
	// block conflicting changes without waiting for the first tick.
	first := make(chan time.Time, 1)
	first <- time.Time{}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-first:
		case <-t.C:
		}
		if review.Poll(ctx, log) {
			select {
			case syncNow <- struct{}{}:
			default: // a sync is already pending
			}
		}
	}
}

// maxHookBody bounds a webhook payload (GitHub sends at most 25 MB).
const maxHookBody = 25 << 20

// gitWebhook answers POST /hooks/git: a push notification from GitHub
// (X-Hub-Signature-256, an HMAC-SHA256 of the body with the secret) or
// GitLab (X-Gitlab-Token, the secret itself). The payload is not trusted
// for anything but "something changed": a verified call only triggers a
// fetch of the remote.
func gitWebhook(secret string, trigger chan<- struct{}) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "only POST", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, maxHookBody))
		if err != nil {
			http.Error(w, "reading the body", http.StatusBadRequest)
			return
		}
		if !verifyHook(secret, r.Header, body) {
			http.Error(w, "bad or missing signature", http.StatusUnauthorized)
			return
		}
		select {
		case trigger <- struct{}{}:
		default: // a sync is already pending; it will see this change too
		}
		w.WriteHeader(http.StatusAccepted)
	})
}

func verifyHook(secret string, h http.Header, body []byte) bool {
	if sig := h.Get("X-Hub-Signature-256"); sig != "" {
		got, err := hex.DecodeString(strings.TrimPrefix(sig, "sha256="))
		if err != nil || !strings.HasPrefix(sig, "sha256=") {
			return false
		}
		mac := hmac.New(sha256.New, []byte(secret))
		mac.Write(body)
		return hmac.Equal(got, mac.Sum(nil))
	}
	if tok := h.Get("X-Gitlab-Token"); tok != "" {
		return subtle.ConstantTimeCompare([]byte(tok), []byte(secret)) == 1
	}
	return false
}
