// Package gitlab is the forge adapter for GitLab (gitlab.com or
// self-managed), on GitLab's own Go client (gitlab.com/gitlab-org/api/client-go).
// A pull request is a merge request there; its number is the merge
// request's iid (the one in its web address), not its global id.
package gitlab

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	gl "gitlab.com/gitlab-org/api/client-go"

	"github.com/openkeel/keel/forge"
)

// Timeout bounds one call to the forge: an API request waits for it.
const Timeout = 30 * time.Second

// pageSize is GitLab's largest page: fewest calls for MaxOpen.
const pageSize = 100

// Forge is one project on a GitLab server.
type Forge struct {
	project string // its full path, group[/subgroup...]/project
	client  *gl.Client
}

var _ forge.Forge = (*Forge)(nil)

// New reaches the project (its full path, e.g. "platform/infra/clusters") on
// the GitLab server at baseURL (e.g. https://gitlab.example.org; the client
// adds /api/v4/) with an access token.
func New(baseURL, project, token string) (*Forge, error) {
	c, err := gl.NewClient(token, gl.WithBaseURL(baseURL),
		gl.WithHTTPClient(&http.Client{Timeout: Timeout}),
		// The client's own retries (up to 5, with backoff) would multiply one
		// API request's cost; review mode reconciles again on its own.
		gl.WithoutRetries(),
		// Its URL warnings (e.g. plain http) go to slog's default logger;
		// keel's URL is the operator's choice, validated by FromRepoURL.
		gl.WithURLWarningLogger(slog.New(slog.NewTextHandler(io.Discard, nil))))
	if err != nil {
		return nil, fmt.Errorf("gitlab: %w", err)
	}
	return &Forge{project: project, client: c}, nil
}

// FromRepoURL reaches the project a clone URL names
// (https://host/group[/subgroup...]/project[.git]), with a token. GitLab
// nests groups, so the whole path is the project's: a GitLab served under a
// relative URL (https://host/gitlab/...) needs New.
func FromRepoURL(raw, token string) (*Forge, error) {
	base, project, err := parseRepoURL(raw)
	if err != nil {
		return nil, err
	}
	return New(base, project, token)
}

func parseRepoURL(raw string) (base, project string, err error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", fmt.Errorf("gitlab: %q is not an http(s) repository URL", raw)
	}
	project = strings.TrimSuffix(strings.Trim(u.Path, "/"), ".git")
	parts := strings.Split(project, "/")
	if len(parts) < 2 {
		return "", "", fmt.Errorf("gitlab: %q does not name group/project", raw)
	}
	for _, p := range parts {
		if p == "" || p == "-" {
			return "", "", fmt.Errorf("gitlab: %q does not name group/project", raw)
		}
	}
	return u.Scheme + "://" + u.Host, project, nil
}

// OpenPullRequest implements forge.Forge.
func (f *Forge) OpenPullRequest(ctx context.Context, n forge.NewPullRequest) (*forge.PullRequest, error) {
	mr, _, err := f.client.MergeRequests.CreateMergeRequest(f.project, &gl.CreateMergeRequestOptions{
		SourceBranch: gl.Ptr(n.Head), TargetBranch: gl.Ptr(n.Base), Title: gl.Ptr(n.Title), Description: gl.Ptr(n.Body),
	}, gl.WithContext(ctx))
	if err != nil {
		return nil, fmt.Errorf("gitlab: opening a merge request of %s into %s: %w", n.Head, n.Base, err)
	}
	return convert(&mr.BasicMergeRequest), nil
}

// PullRequest implements forge.Forge.
func (f *Forge) PullRequest(ctx context.Context, number int64) (*forge.PullRequest, error) {
	mr, _, err := f.client.MergeRequests.GetMergeRequest(f.project, number, nil, gl.WithContext(ctx))
	if errors.Is(err, gl.ErrNotFound) {
		return nil, fmt.Errorf("gitlab: merge request !%d: %w", number, forge.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("gitlab: reading merge request !%d: %w", number, err)
	}
	return convert(&mr.BasicMergeRequest), nil
}

// OpenPullRequests implements forge.Forge.
func (f *Forge) OpenPullRequests(ctx context.Context) ([]forge.PullRequest, error) {
	var out []forge.PullRequest
	opts := &gl.ListProjectMergeRequestsOptions{State: gl.Ptr("opened"),
		ListOptions: gl.ListOptions{Page: 1, PerPage: pageSize}}
	for len(out) < forge.MaxOpen {
		mrs, resp, err := f.client.MergeRequests.ListProjectMergeRequests(f.project, opts, gl.WithContext(ctx))
		if err != nil {
			return nil, fmt.Errorf("gitlab: listing open merge requests: %w", err)
		}
		for _, mr := range mrs {
			out = append(out, *convert(mr))
		}
		if resp.NextPage == 0 {
			break
		}
		opts.Page = resp.NextPage
	}
	if len(out) > forge.MaxOpen {
		out = out[:forge.MaxOpen]
	}
	return out, nil
}

// Comment implements forge.Forge: a comment is a note on the merge request.
func (f *Forge) Comment(ctx context.Context, number int64, body string) error {
	_, _, err := f.client.Notes.CreateMergeRequestNote(f.project, number,
		&gl.CreateMergeRequestNoteOptions{Body: gl.Ptr(body)}, gl.WithContext(ctx))
	if errors.Is(err, gl.ErrNotFound) {
		return fmt.Errorf("gitlab: merge request !%d: %w", number, forge.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("gitlab: commenting on merge request !%d: %w", number, err)
	}
	return nil
}

// SetStatus implements forge.Forge: a commit status is an external job of
// the commit's pipeline, named after the status's context.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.Status) error {
	st, err := buildState(s.State)
	if err != nil {
		return err
	}
	opts := &gl.SetCommitStatusOptions{State: st, Name: gl.Ptr(s.Context)}
	if s.Description != "" {
		opts.Description = gl.Ptr(s.Description)
	}
	if s.TargetURL != "" {
		opts.TargetURL = gl.Ptr(s.TargetURL)
	}
	if _, _, err := f.client.Commits.SetCommitStatus(f.project, sha, opts, gl.WithContext(ctx)); err != nil {
		return fmt.Errorf("gitlab: setting status %s on %s: %w", s.Context, sha, err)
	}
	return nil
}

// buildState maps keel's commit states onto GitLab's job states. GitLab has
// no "error": a check that could not run failed, as far as a merge goes
// (its description says why). Keel sets no "running" (its checks report
// once done) and no "canceled" (it stops no one's job).
func buildState(s forge.CommitState) (gl.BuildStateValue, error) {
	switch s {
	case forge.Pending:
		return gl.Pending, nil
	case forge.Success:
		return gl.Success, nil
	case forge.Failure, forge.Error:
		return gl.Failed, nil
	}
	return "", fmt.Errorf("gitlab: commit state %q is not pending, success, failure or error", s)
}

// convert reads a merge request. GitLab's states: opened, closed, locked
// (an open one being merged) and merged.
func convert(mr *gl.BasicMergeRequest) *forge.PullRequest {
	out := &forge.PullRequest{Number: mr.IID, URL: mr.WebURL, State: forge.Open,
		Head: mr.SourceBranch, Body: mr.Description}
	switch mr.State {
	case "merged":
		out.State = forge.Merged
		// A merge commit, else the squashed commit; a fast-forward merge
		// has neither: the head commit itself landed.
		out.MergeCommit = mr.MergeCommitSHA
		if out.MergeCommit == "" {
			out.MergeCommit = mr.SquashCommitSHA
		}
		if out.MergeCommit == "" {
			out.MergeCommit = mr.SHA
		}
	case "closed":
		out.State = forge.Closed
	}
	return out
}
