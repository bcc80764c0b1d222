package restapi

// Review mode: a change that the site's review policy (site.cue's
// site.review) covers is committed to a branch keel/review/<request id>
// on the Git server and opened as a pull request, instead of going to
// main. The API answers as Magnum does for an accepted request; the
// object's status_reason says the change awaits review until the pull
// request is merged (keel then follows main as for any commit) or closed
// (the change is dropped). See docs/repository.md, "Review mode".

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"sync"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/schemas"
)

// Review wires review mode (Config.Review; nil: every change goes to
// main, whatever the site file says).
type Review struct {
	Forge   forge.Forge
	Pending *Pending
}

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

// Poll asks the forge about every open review and records merges and
// closes. merged reports that one was merged: main moved on the server.
// It first takes in the open pull requests keel opened that the list
// lacks: those of another replica, or of this one before a restart.
func (r *Review) Poll(ctx context.Context, log *slog.Logger) (merged bool) {
	if err := r.adoptOpen(ctx); err != nil {
		log.Warn("listing the open pull requests", "err", err)
	}
	for _, pr := range r.Pending.Open() {
		got, err := r.Forge.PullRequest(ctx, pr.Number)
		if err != nil {
			log.Warn("reading a review's pull request", "url", pr.URL, "err", err)
			continue
		}
		if got.State != forge.Open {
			log.Info("review resolved", "url", pr.URL, "state", got.State, "object", pr.Object)
			r.Pending.Resolve(pr.Number, got.State)
			merged = merged || got.State == forge.Merged
		}
	}
	return merged
}

// reviewMarker starts the line of a pull request's body that names what
// it reviews, so that a review outlives the process that opened it.
const reviewMarker = "<!-- keel-review "

// reviewMeta is what the marker line records.
type reviewMeta struct {
	Object    string `json:"object"`
	Project   string `json:"project"`
	Operation string `json:"operation"`
	RequestID string `json:"request_id"`
}

// adoptOpen records the open pull requests of keel's review branches that
// the list does not have yet.
func (r *Review) adoptOpen(ctx context.Context) error {
	prs, err := r.Forge.OpenPullRequests(ctx)
	if err != nil {
		return err
	}
	for _, pr := range prs {
		if !strings.HasPrefix(pr.Head, gitstore.ReviewBranchPrefix) {
			continue // a person's pull request
		}
		meta, ok := parseReviewMarker(pr.Body)
		if !ok {
			continue
		}
		if cur, ok := r.Pending.get(meta.Object); ok && (cur.Number == pr.Number || !cur.Closed) {
			continue
		}
		r.Pending.put(PendingReview{Object: meta.Object, Project: meta.Project, Operation: meta.Operation,
			RequestID: meta.RequestID, Branch: pr.Head, Number: pr.Number, URL: pr.URL})
	}
	return nil
}

func parseReviewMarker(body string) (reviewMeta, bool) {
	i := strings.LastIndex(body, reviewMarker)
	if i < 0 {
		return reviewMeta{}, false
	}
	rest := body[i+len(reviewMarker):]
	j := strings.Index(rest, " -->")
	var m reviewMeta
	if j < 0 || json.Unmarshal([]byte(rest[:j]), &m) != nil || m.Object == "" {
		return reviewMeta{}, false
	}
	return m, true
}

// reviewReason is the review note of a cluster's view ("" without review
// mode or review).
func (s *Server) reviewReason(dir string) string {
	if s.cfg.Review == nil {
		return ""
	}
	return s.cfg.Review.Pending.Reason(dir)
}

// reviewTarget is what a commit changes, for review: the object (cluster
// folder or template file), its project and the site.review operation;
// operation "" is never reviewed (quotas).
func reviewTarget(cm *gitstore.Commit) (object, project, operation string) {
	for _, t := range cm.Trailers {
		switch t.Key {
		case "Keel-Project":
			project = t.Value
		case "Keel-Operation":
			operation = t.Value
		}
	}
	for _, ch := range cm.Changes {
		if d, ok := intent.ClusterDirOfPath(ch.Path + "/"); ok { // "/": a delete names the folder itself
			object = d
			break
		}
		if intent.IsTemplateFile(ch.Path) {
			return ch.Path, project, schemas.ReviewTemplate
		}
	}
	if object == "" {
		return "", project, ""
	}
	if operation == "update" && strings.Contains(cm.Subject, " nodegroup ") {
		operation = schemas.ReviewNodeGroup
	}
	return object, project, operation
}

// commitOrPropose is commit's review-mode path: it computes the change on
// HEAD; when the site's review policy covers it, it pushes it to a review
// branch and opens a pull request (done is then true), else the caller
// commits it to main as usual. A change to an object with an open review
// is refused with a 409: stacking changes on an unreviewed one would make
// the reviewer approve a state they never saw.
func (s *Server) commitOrPropose(c *gin.Context, fn gitstore.UpdateFunc) (done bool, object string, err error) {
	ctx := c.Request.Context()
	head, err := s.cfg.Store.SnapshotHead()
	if err != nil {
		return false, "", err
	}
	cm, err := fn(head)
	if err != nil || cm == nil {
		return false, "", err
	}
	object, project, op := reviewTarget(cm)
	if object == "" {
		return false, "", nil
	}
	if r, ok := s.cfg.Review.Pending.get(object); ok && !r.Closed {
		return false, "", apierr.Conflict("%s has a change awaiting review (%s); merge or close that pull request first.", objectName(object), r.URL)
	}
	cat, err := s.siteCatalogue()
	if err != nil {
		return false, "", err
	}
	if op == "" || !cat.NeedsReview(project, op) {
		return false, object, nil
	}
	branch := gitstore.ReviewBranchPrefix + requestIDOf(c)
	prop, err := s.cfg.Store.Propose(ctx, branch, fn)
	if errors.Is(err, gitstore.ErrRemoteUnavailable) || errors.Is(err, gitstore.ErrNoRemote) {
		apierr.Log(c).Error("the Git remote did not take the review branch", "err", err)
		return false, "", apierr.Errorf(http.StatusServiceUnavailable, "The cluster repository's Git server is unavailable. The change was not made; please retry later.")
	}
	if err != nil || prop == nil {
		return prop == nil && err == nil, object, err
	}
	planText := s.reviewPlan(c, prop)
	meta := reviewMeta{Object: object, Project: project, Operation: op, RequestID: requestIDOf(c)}
	pr, err := s.cfg.Review.Forge.OpenPullRequest(ctx, forge.NewPullRequest{
		Head: prop.Branch, Base: gitstore.Branch, Title: cm.Subject, Body: reviewBody(cm, meta, c.Request, planText),
	})
	if err != nil {
		apierr.Log(c).Error("the forge did not open the review's pull request", "branch", prop.Branch, "err", err)
		return false, "", apierr.Errorf(http.StatusServiceUnavailable, "The Git server did not open a pull request for the change (branch %s). Please retry later.", prop.Branch)
	}
	s.cfg.Review.Pending.put(PendingReview{Object: object, Project: project, Operation: op, RequestID: requestIDOf(c),
		Branch: prop.Branch, Number: pr.Number, URL: pr.URL})
	apierr.Log(c).Info("change awaits review", "url", pr.URL, "object", object, "operation", op)
	return true, object, nil
}

// reviewPlan is keel plan's text for a proposal (a note when it cannot be
// computed: the pull request is still worth opening).
func (s *Server) reviewPlan(c *gin.Context, prop *gitstore.Proposal) string {
	bs, err := s.cfg.Store.SnapshotAt(prop.Base)
	if err != nil {
		return "(keel plan failed: " + err.Error() + ")"
	}
	hs, err := s.cfg.Store.SnapshotAt(prop.Commit)
	if err != nil {
		return "(keel plan failed: " + err.Error() + ")"
	}
	plans, err := repo.PlanChange(c.Request.Context(), bs, hs)
	if err != nil {
		return "(keel plan failed: " + err.Error() + ")"
	}
	return repo.FormatPlans(plans)
}

func reviewBody(cm *gitstore.Commit, meta reviewMeta, r *http.Request, planText string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s asked through the Magnum API: `%s %s` (request %s).\n\n", cm.Author.Name, r.Method, r.URL.Path, meta.RequestID)
	b.WriteString("Merging applies the change as any commit on main; closing drops it.\n\n")
	b.WriteString("## keel plan\n\n```\n")
	b.WriteString(strings.TrimRight(planText, "\n"))
	b.WriteString("\n```\n\n")
	b.WriteString("```\n" + cm.Message() + "```\n")
	m, _ := json.Marshal(meta) // strings only: cannot fail
	b.WriteString("\n" + reviewMarker + string(m) + " -->\n")
	return b.String()
}

func objectName(object string) string {
	if intent.IsTemplateFile(object) {
		return "Cluster template " + strings.TrimSuffix(object[strings.LastIndex(object, "/")+1:], ".yaml")
	}
	return "Cluster " + object[strings.LastIndex(object, "/")+1:]
}

// clusterDetail is newClusterDetail with review mode's note: status stays
// what Cluster API reports (clients poll status and would take a new one
// for a state change), status_reason tells a person why nothing happens.
func (s *Server) clusterDetail(c *gin.Context, v *readmodel.ClusterView, tmpl *intent.ClusterTemplate) clusterDetail {
	out := newClusterDetail(c, v, tmpl)
	if r := s.reviewReason(v.Dir); r != "" {
		out.StatusReason = &r
	}
	return out
}
