package review

import (
	"crypto/hmac"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"encoding/json"
	"io"
	"net/http"
	"strings"

	"github.com/openkeel/keel/gitstore"
)

// MaxHookBody bounds a webhook payload (GitHub sends at most 25 MB).
const MaxHookBody = 25 << 20

// Webhook answers POST /hooks/git, the Git server's webhook, signed by
// GitHub, Gitea and Forgejo (X-Hub-Signature-256 or X-Gitea-Signature, an
// HMAC-SHA256 of the body with the secret) or GitLab (X-Gitlab-Token, the
// secret itself). The signature is checked before anything is parsed.
//
// A pull_request event (opened, synchronize(d), reopened), or GitLab's
// Merge Request Hook (open, reopen, update with new commits), of a pull
// request into main that keel did not open queues its check on pulls (nil:
// review checks off); any other verified call only means "something
// changed" and triggers a fetch: its payload is not trusted for more.
func Webhook(secret string, trigger chan<- struct{}, pulls *PullChecks) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.Method != http.MethodPost {
			w.Header().Set("Allow", http.MethodPost)
			http.Error(w, "only POST", http.StatusMethodNotAllowed)
			return
		}
		body, err := io.ReadAll(io.LimitReader(r.Body, MaxHookBody+1))
		if err != nil {
			http.Error(w, "reading the body", http.StatusBadRequest)
			return
		}
		if len(body) > MaxHookBody {
			http.Error(w, "payload larger than 25 MB", http.StatusRequestEntityTooLarge)
			return
		}
		if !verifyHook(secret, r.Header, body) {
			http.Error(w, "bad or missing signature", http.StatusUnauthorized)
			return
		}
		switch hookEvent(r.Header) {
		case "pull_request":
			pullRequestHook(w, body, pulls)
			return
		case "Merge Request Hook":
			mergeRequestHook(w, body, pulls)
			return
		}
		select {
		case trigger <- struct{}{}:
		default: // a sync is already pending; it will see this change too
		}
		w.WriteHeader(http.StatusAccepted)
	})
}

// hookEvent is the event a delivery announces (Gitea and Forgejo send
// both their header and GitHub's).
func hookEvent(h http.Header) string {
	for _, k := range []string{"X-Gitea-Event", "X-Forgejo-Event", "X-GitHub-Event", "X-Gitlab-Event"} {
		if v := h.Get(k); v != "" {
			return v
		}
	}
	return ""
}

// pullRequestPayload is the part of GitHub's and Gitea's pull_request
// payload keel reads.
type pullRequestPayload struct {
	Action      string `json:"action"`
	PullRequest *struct {
		Number int64  `json:"number"`
		Body   string `json:"body"`
		Head   struct {
			Ref string `json:"ref"`
			SHA string `json:"sha"`
		} `json:"head"`
		Base struct {
			Ref string `json:"ref"`
		} `json:"base"`
	} `json:"pull_request"`
}

func pullRequestHook(w http.ResponseWriter, body []byte, pulls *PullChecks) {
	var p pullRequestPayload
	if err := json.Unmarshal(body, &p); err != nil || p.PullRequest == nil || p.PullRequest.Number <= 0 {
		http.Error(w, "not a pull_request payload", http.StatusBadRequest)
		return
	}
	switch p.Action {
	case "opened", "reopened", "synchronize", "synchronized": // GitHub says synchronize, Gitea synchronized
	default:
		w.WriteHeader(http.StatusAccepted) // edited, closed, labeled...: nothing to check
		return
	}
	e := PullEvent{Number: p.PullRequest.Number, Ref: gitstore.PullRef(p.PullRequest.Number), HeadRef: p.PullRequest.Head.Ref, HeadSHA: p.PullRequest.Head.SHA,
		BaseRef: p.PullRequest.Base.Ref, Body: p.PullRequest.Body}
	queuePull(w, e, pulls)
}

// mergeRequestPayload is the part of GitLab's Merge Request Hook keel
// reads.
type mergeRequestPayload struct {
	ObjectKind string `json:"object_kind"`
	Attrs      *struct {
		IID          int64  `json:"iid"`
		Action       string `json:"action"`
		SourceBranch string `json:"source_branch"`
		TargetBranch string `json:"target_branch"`
		Description  string `json:"description"`
		OldRev       string `json:"oldrev"`
		LastCommit   struct {
			ID string `json:"id"`
		} `json:"last_commit"`
	} `json:"object_attributes"`
}

func mergeRequestHook(w http.ResponseWriter, body []byte, pulls *PullChecks) {
	var p mergeRequestPayload
	if err := json.Unmarshal(body, &p); err != nil || p.ObjectKind != "merge_request" || p.Attrs == nil || p.Attrs.IID <= 0 {
		http.Error(w, "not a merge_request payload", http.StatusBadRequest)
		return
	}
	a := p.Attrs
	// "update" is also a title or label edit; oldrev is set only when
	// commits were pushed.
	if a.Action != "open" && a.Action != "reopen" && (a.Action != "update" || a.OldRev == "") {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	queuePull(w, PullEvent{Number: a.IID, Ref: gitstore.MergeRequestRef(a.IID), HeadRef: a.SourceBranch,
		HeadSHA: a.LastCommit.ID, BaseRef: a.TargetBranch, Body: a.Description}, pulls)
}

// queuePull queues the check of a person's pull request into main.
func queuePull(w http.ResponseWriter, e PullEvent, pulls *PullChecks) {
	if pulls == nil || e.BaseRef != gitstore.Branch || e.byKeel() {
		w.WriteHeader(http.StatusAccepted)
		return
	}
	if !pulls.Enqueue(e) {
		// The forge shows the failed delivery and can redeliver it.
		w.Header().Set("Retry-After", "60")
		http.Error(w, "too many pull requests waiting for a check", http.StatusServiceUnavailable)
		return
	}
	w.WriteHeader(http.StatusAccepted)
}

func verifyHook(secret string, h http.Header, body []byte) bool {
	sig, prefixed := h.Get("X-Hub-Signature-256"), true
	if sig == "" {
		sig, prefixed = h.Get("X-Gitea-Signature"), false
	}
	if sig != "" {
		if prefixed {
			if !strings.HasPrefix(sig, "sha256=") {
				return false
			}
			sig = strings.TrimPrefix(sig, "sha256=")
		}
		got, err := hex.DecodeString(sig)
		if err != nil {
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
