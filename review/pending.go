// Package review is keel's review mode: the API's changes that the site's
// review policy (site.cue's site.review) covers become pull requests
// instead of commits on main (Mode), the pull requests people open are
// checked as a CI job running `keel vet` and `keel plan` would
// (PullChecks), and the Git server's webhook (Webhook) announces both. See
// docs/repository.md, "Review mode". It knows nothing of HTTP requests
// beyond the webhook: the API hands it a change and the request's id.
package review

import (
	"encoding/json"
	"strings"
	"sync"

	"github.com/openkeel/keel/forge"
)

// PendingReview is one change keel opened a pull request for.
type PendingReview struct {
	// Object is the changed cluster's folder or template's file.
	Object    string
	Project   string
	Operation string
	RequestID string
	Branch    string
	Number    int64
	URL       string
	// Closed: the pull request was closed without merging.
	Closed bool
}

// Pending is keel's list of its open (and last closed) reviews, one per
// object. It is process memory: a restart forgets it (docs/api.md).
type Pending struct {
	mu       sync.Mutex
	byObject map[string]*PendingReview
}

// NewPending is an empty list.
func NewPending() *Pending { return &Pending{byObject: map[string]*PendingReview{}} }

func (p *Pending) get(object string) (PendingReview, bool) {
	p.mu.Lock()
	defer p.mu.Unlock()
	r, ok := p.byObject[object]
	if !ok {
		return PendingReview{}, false
	}
	return *r, true
}

func (p *Pending) put(r PendingReview) {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.byObject[r.Object] = &r
}

// forget drops a closed review's note once a new change of its object is
// made.
func (p *Pending) forget(object string) {
	p.mu.Lock()
	defer p.mu.Unlock()
	if r, ok := p.byObject[object]; ok && r.Closed {
		delete(p.byObject, object)
	}
}

// Open lists the reviews still open.
func (p *Pending) Open() []PendingReview {
	p.mu.Lock()
	defer p.mu.Unlock()
	var out []PendingReview
	for _, r := range p.byObject {
		if !r.Closed {
			out = append(out, *r)
		}
	}
	return out
}

// Resolve records a pull request's new state: merged drops the review
// (main now holds the change), closed keeps a note of it.
func (p *Pending) Resolve(number int64, s forge.State) {
	p.mu.Lock()
	defer p.mu.Unlock()
	for k, r := range p.byObject {
		if r.Number != number || r.Closed {
			continue
		}
		switch s {
		case forge.Merged:
			delete(p.byObject, k)
		case forge.Closed:
			r.Closed = true
		}
	}
}

// Reason is the status_reason an object with a review shows ("" without).
func (p *Pending) Reason(object string) string {
	r, ok := p.get(object)
	switch {
	case !ok:
		return ""
	case r.Closed:
		return "review closed without merging, change dropped: " + r.URL
	}
	return "awaiting review: " + r.URL
}

// Marker starts the line of a pull request's body that names what it
// reviews, so that a review outlives the process that opened it.
const Marker = "<!-- keel-review "

// meta is what the marker line records.
type meta struct {
	Object    string `json:"object"`
	Project   string `json:"project"`
	Operation string `json:"operation"`
	RequestID string `json:"request_id"`
}

func parseMarker(body string) (meta, bool) {
	i := strings.LastIndex(body, Marker)
	if i < 0 {
		return meta{}, false
	}
	rest := body[i+len(Marker):]
	j := strings.Index(rest, " -->")
	var m meta
	if j < 0 || json.Unmarshal([]byte(rest[:j]), &m) != nil || m.Object == "" {
		return meta{}, false
	}
	return m, true
}
