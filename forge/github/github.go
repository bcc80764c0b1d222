// Package github is the forge adapter for GitHub and GitHub Enterprise
// Server, on GitHub's well-kept Go client (github.com/google/go-github).
package github

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	gh "github.com/google/go-github/v74/github"

	"github.com/openkeel/keel/forge"
)

// Timeout bounds one call to the forge: an API request waits for it.
const Timeout = 30 * time.Second

// pageSize is GitHub's largest page: fewest calls for MaxOpen.
const pageSize = 100

// Forge is one repository on GitHub or a GitHub Enterprise Server.
type Forge struct {
	owner, repo string
	client      *gh.Client
}

var _ forge.Forge = (*Forge)(nil)

// New reaches owner/repo through the REST API at apiURL with an access
// token. apiURL "" is github.com's (https://api.github.com/); any other is a
// GitHub Enterprise Server (https://host, to which the client adds /api/v3/).
func New(apiURL, owner, repo, token string) (*Forge, error) {
	c := gh.NewClient(&http.Client{Timeout: Timeout}).WithAuthToken(token)
	if apiURL != "" {
		var err error
		// Keel uploads nothing: the upload URL is the API's.
		if c, err = c.WithEnterpriseURLs(apiURL, apiURL); err != nil {
			return nil, fmt.Errorf("github: API URL %q: %w", apiURL, err)
		}
	}
	return &Forge{owner: owner, repo: repo, client: c}, nil
}

// FromRepoURL reaches the repository a clone URL names
// (https://github.com/owner/repo[.git], or https://host/owner/repo[.git] on
// a GitHub Enterprise Server), with a token.
func FromRepoURL(raw, token string) (*Forge, error) {
	apiURL, owner, repo, err := parseRepoURL(raw)
	if err != nil {
		return nil, err
	}
	return New(apiURL, owner, repo, token)
}

func parseRepoURL(raw string) (apiURL, owner, repo string, err error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
		return "", "", "", fmt.Errorf("github: %q is not an http(s) repository URL", raw)
	}
	// GitHub serves repositories at the root of its host: exactly owner/repo.
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) != 2 || parts[0] == "" || strings.TrimSuffix(parts[1], ".git") == "" {
		return "", "", "", fmt.Errorf("github: %q does not name owner/repository", raw)
	}
	owner, repo = parts[0], strings.TrimSuffix(parts[1], ".git")
	if strings.EqualFold(u.Hostname(), "github.com") || strings.EqualFold(u.Hostname(), "www.github.com") {
		return "", owner, repo, nil
	}
	return u.Scheme + "://" + u.Host + "/api/v3/", owner, repo, nil
}

// OpenPullRequest implements forge.Forge.
func (f *Forge) OpenPullRequest(ctx context.Context, n forge.NewPullRequest) (*forge.PullRequest, error) {
	pr, _, err := f.client.PullRequests.Create(ctx, f.owner, f.repo, &gh.NewPullRequest{
		Head: gh.Ptr(n.Head), Base: gh.Ptr(n.Base), Title: gh.Ptr(n.Title), Body: gh.Ptr(n.Body),
	})
	if err != nil {
		return nil, fmt.Errorf("github: opening a pull request of %s into %s: %w", n.Head, n.Base, err)
	}
	return convert(pr), nil
}

// PullRequest implements forge.Forge.
func (f *Forge) PullRequest(ctx context.Context, number int64) (*forge.PullRequest, error) {
	pr, _, err := f.client.PullRequests.Get(ctx, f.owner, f.repo, int(number))
	if notFound(err) {
		return nil, fmt.Errorf("github: pull request %d: %w", number, forge.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("github: reading pull request %d: %w", number, err)
	}
	return convert(pr), nil
}

// OpenPullRequests implements forge.Forge.
func (f *Forge) OpenPullRequests(ctx context.Context) ([]forge.PullRequest, error) {
	var out []forge.PullRequest
	opts := &gh.PullRequestListOptions{State: "open", ListOptions: gh.ListOptions{Page: 1, PerPage: pageSize}}
	for len(out) < forge.MaxOpen {
		prs, resp, err := f.client.PullRequests.List(ctx, f.owner, f.repo, opts)
		if err != nil {
			return nil, fmt.Errorf("github: listing open pull requests: %w", err)
		}
		for _, pr := range prs {
			out = append(out, *convert(pr))
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

// Comment implements forge.Forge: a pull request's conversation is its
// issue's comments.
func (f *Forge) Comment(ctx context.Context, number int64, body string) error {
	_, _, err := f.client.Issues.CreateComment(ctx, f.owner, f.repo, int(number), &gh.IssueComment{Body: gh.Ptr(body)})
	if notFound(err) {
		return fmt.Errorf("github: pull request %d: %w", number, forge.ErrNotFound)
	}
	if err != nil {
		return fmt.Errorf("github: commenting on pull request %d: %w", number, err)
	}
	return nil
}

// SetStatus implements forge.Forge. GitHub's commit states are keel's.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.Status) error {
	st := &gh.RepoStatus{State: gh.Ptr(string(s.State)), Context: gh.Ptr(s.Context)}
	if s.Description != "" {
		st.Description = gh.Ptr(s.Description)
	}
	if s.TargetURL != "" {
		st.TargetURL = gh.Ptr(s.TargetURL)
	}
	_, _, err := f.client.Repositories.CreateStatus(ctx, f.owner, f.repo, sha, st)
	if err != nil {
		return fmt.Errorf("github: setting status %s on %s: %w", s.Context, sha, err)
	}
	return nil
}

func notFound(err error) bool {
	var e *gh.ErrorResponse
	return errors.As(err, &e) && e.Response != nil && e.Response.StatusCode == http.StatusNotFound
}

func convert(pr *gh.PullRequest) *forge.PullRequest {
	out := &forge.PullRequest{Number: int64(pr.GetNumber()), URL: pr.GetHTMLURL(), State: forge.Open,
		Head: pr.GetHead().GetRef(), Body: pr.GetBody()}
	switch {
	// GitHub's state is "closed" for a merged pull request too: merged_at
	// tells them apart.
	case pr.MergedAt != nil:
		out.State = forge.Merged
		out.MergeCommit = pr.GetMergeCommitSHA()
	case pr.GetState() == "closed":
		out.State = forge.Closed
	}
	return out
}
