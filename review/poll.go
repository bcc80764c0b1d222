package review

import (
	"context"
	"log/slog"
	"strings"

	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/gitstore"
)

// Poll asks the forge about every open review and records merges and
// closes. merged reports that one was merged: main moved on the server.
// It first takes in the open pull requests keel opened that the list
// lacks: those of another replica, or of this one before a restart.
func (m *Mode) Poll(ctx context.Context, log *slog.Logger) (merged bool) {
	if err := m.adoptOpen(ctx); err != nil {
		log.Warn("listing the open pull requests", "err", err)
	}
	for _, pr := range m.Pending.Open() {
		got, err := m.Forge.PullRequest(ctx, pr.Number)
		if err != nil {
			log.Warn("reading a review's pull request", "url", pr.URL, "err", err)
			continue
		}
		if got.State != forge.Open {
			log.Info("review resolved", "url", pr.URL, "state", got.State, "object", pr.Object)
			m.Pending.Resolve(pr.Number, got.State)
			merged = merged || got.State == forge.Merged
		}
	}
	return merged
}

// adoptOpen records the open pull requests of keel's review branches that
// the list does not have yet.
func (m *Mode) adoptOpen(ctx context.Context) error {
	prs, err := m.Forge.OpenPullRequests(ctx)
	if err != nil {
		return err
	}
	for _, pr := range prs {
		if !strings.HasPrefix(pr.Head, gitstore.ReviewBranchPrefix) {
			continue // a person's pull request
		}
		mt, ok := parseMarker(pr.Body)
		if !ok {
			continue
		}
		if cur, ok := m.Pending.get(mt.Object); ok && (cur.Number == pr.Number || !cur.Closed) {
			continue
		}
		m.Pending.put(PendingReview{Object: mt.Object, Project: mt.Project, Operation: mt.Operation,
			RequestID: mt.RequestID, Branch: pr.Head, Number: pr.Number, URL: pr.URL})
	}
	return nil
}
