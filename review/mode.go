package review

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

// Mode sends the API's changes that the site's review policy covers to
// pull requests on the forge, and follows them.
type Mode struct {
	Forge   forge.Forge
	Store   *gitstore.Store
	Pending *Pending
	Log     *slog.Logger
}

// New is review mode on a forge, with no review open yet.
func New(f forge.Forge, st *gitstore.Store, log *slog.Logger) *Mode {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Mode{Forge: f, Store: st, Pending: NewPending(), Log: log}
}

// UnderReviewError refuses a change of an object with an open review:
// stacking changes on an unreviewed one would make the reviewer approve a
// state they never saw.
type UnderReviewError struct{ Object, URL string }

func (e *UnderReviewError) Error() string {
	return fmt.Sprintf("%s has a change awaiting review (%s); merge or close that pull request first.", objectName(e.Object), e.URL)
}

// HTTPStatus is 409 Conflict (apierr reads it).
func (e *UnderReviewError) HTTPStatus() int { return http.StatusConflict }

// UnavailableError is the forge or its Git server not taking a review:
// nothing was changed and the client may retry.
type UnavailableError struct {
	Msg string
	Err error
}

func (e *UnavailableError) Error() string { return e.Msg }
func (e *UnavailableError) Unwrap() error { return e.Err }

// HTTPStatus is 503 Service Unavailable (apierr reads it).
func (e *UnavailableError) HTTPStatus() int { return http.StatusServiceUnavailable }

// Reason is the review note of an object's view ("" without review).
func (m *Mode) Reason(object string) string { return m.Pending.Reason(object) }

// Committed records that a change of object went to main: a closed
// review's note of it is dropped.
func (m *Mode) Committed(object string) { m.Pending.forget(object) }

// Propose computes the change fn makes on HEAD; when the site's review
// policy (cat) covers it, it pushes it to a review branch and opens a pull
// request (proposed is then true), else the caller commits it to main as
// usual, and tells Committed the object it returned. requestID names the
// API request (and the review branch), request is its method and path, as
// the pull request's body shows them. A change to an object with an open
// review is an *UnderReviewError.
func (m *Mode) Propose(ctx context.Context, requestID, request string, cat *schemas.Catalogue, fn gitstore.UpdateFunc) (proposed bool, object string, err error) {
	head, err := m.Store.SnapshotHead()
	if err != nil {
		return false, "", err
	}
	cm, err := fn(head)
	if err != nil || cm == nil {
		return false, "", err
	}
	object, project, op := Target(cm)
	if object == "" {
		return false, "", nil
	}
	if r, ok := m.Pending.get(object); ok && !r.Closed {
		return false, "", &UnderReviewError{Object: object, URL: r.URL}
	}
	if op == "" || !cat.NeedsReview(project, op) {
		return false, object, nil
	}
	mt := meta{Object: object, Project: project, Operation: op, RequestID: requestID}
	return m.open(ctx, request, cm, mt, fn)
}

// open pushes the change to its review branch and opens its pull request.
func (m *Mode) open(ctx context.Context, request string, cm *gitstore.Commit, mt meta, fn gitstore.UpdateFunc) (bool, string, error) {
	log := m.Log.With("request_id", mt.RequestID)
	prop, err := m.Store.Propose(ctx, gitstore.ReviewBranchPrefix+mt.RequestID, fn)
	if errors.Is(err, gitstore.ErrRemoteUnavailable) || errors.Is(err, gitstore.ErrNoRemote) {
		log.Error("the Git remote did not take the review branch", "err", err)
		return false, "", &UnavailableError{Err: err, Msg: "The cluster repository's Git server is unavailable. The change was not made; please retry later."}
	}
	if err != nil || prop == nil {
		return prop == nil && err == nil, mt.Object, err
	}
	pr, err := m.Forge.OpenPullRequest(ctx, forge.NewPullRequest{
		Head: prop.Branch, Base: gitstore.Branch, Title: cm.Subject, Body: body(cm, mt, request, m.plan(ctx, prop)),
	})
	if err != nil {
		log.Error("the forge did not open the review's pull request", "branch", prop.Branch, "err", err)
		return false, "", &UnavailableError{Err: err, Msg: fmt.Sprintf("The Git server did not open a pull request for the change (branch %s). Please retry later.", prop.Branch)}
	}
	m.Pending.put(PendingReview{Object: mt.Object, Project: mt.Project, Operation: mt.Operation, RequestID: mt.RequestID,
		Branch: prop.Branch, Number: pr.Number, URL: pr.URL})
	log.Info("change awaits review", "url", pr.URL, "object", mt.Object, "operation", mt.Operation)
	return true, mt.Object, nil
}

// Target is what a commit changes, for review: the object (cluster folder
// or template file), its project and the site.review operation; operation
// "" is never reviewed (quotas).
func Target(cm *gitstore.Commit) (object, project, operation string) {
	for _, t := range cm.Trailers {
		switch t.Key {
		case gitstore.TrailerProject:
			project = t.Value
		case gitstore.TrailerOperation:
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
	if operation == status.OpUpdate && strings.Contains(cm.Subject, " nodegroup ") {
		operation = schemas.ReviewNodeGroup
	}
	return object, project, operation
}

// plan is keel plan's text for a proposal (a note when it cannot be
// computed: the pull request is still worth opening).
func (m *Mode) plan(ctx context.Context, prop *gitstore.Proposal) string {
	bs, err := m.Store.SnapshotAt(prop.Base)
	if err != nil {
		return "(keel plan failed: " + err.Error() + ")"
	}
	hs, err := m.Store.SnapshotAt(prop.Commit)
	if err != nil {
		return "(keel plan failed: " + err.Error() + ")"
	}
	return planText(ctx, bs, hs)
}

// planText is `keel plan` from bs to hs, or a line saying why it failed.
func planText(ctx context.Context, bs, hs *gitstore.Snapshot) string {
	plans, err := repo.PlanChange(ctx, bs, hs)
	if err != nil {
		return "(keel plan failed: " + err.Error() + ")"
	}
	return repo.FormatPlans(plans)
}

func body(cm *gitstore.Commit, mt meta, request, planText string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "%s asked through the Magnum API: `%s` (request %s).\n\n", cm.Author.Name, request, mt.RequestID)
	b.WriteString("Merging applies the change as any commit on main; closing drops it.\n\n")
	b.WriteString("## keel plan\n\n```\n")
	b.WriteString(strings.TrimRight(planText, "\n"))
	b.WriteString("\n```\n\n")
	b.WriteString("```\n" + cm.Message() + "```\n")
	m, _ := json.Marshal(mt) // strings only: cannot fail
	b.WriteString("\n" + Marker + string(m) + " -->\n")
	return b.String()
}

func objectName(object string) string {
	if intent.IsTemplateFile(object) {
		return "Cluster template " + strings.TrimSuffix(object[strings.LastIndex(object, "/")+1:], ".yaml")
	}
	return "Cluster " + object[strings.LastIndex(object, "/")+1:]
}
