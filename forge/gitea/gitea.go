// Package gitea is the forge adapter for Gitea and Forgejo, on Gitea's own
// Go client (code.gitea.io/sdk/gitea).
package gitea

import (
	"context"
	"fmt"
	"net/http"
	"net/url"
	"strings"
	"time"

	sdk "code.gitea.io/sdk/gitea"

	"github.com/openkeel/keel/forge"
)

// Timeout bounds one call to the forge: an API request waits for it.
const Timeout = 30 * time.Second

// Forge is one repository on a Gitea server.
type Forge struct {
	baseURL     string
	owner, repo string
	token       string
	http        *http.Client
}

var _ forge.Forge = (*Forge)(nil)

// New reaches owner/repo on the Gitea server at baseURL (e.g.
// https://git.example.org) with an access token.
func New(baseURL, owner, repo, token string) *Forge {
	return &Forge{baseURL: strings.TrimSuffix(baseURL, "/"), owner: owner, repo: repo, token: token,
		http: &http.Client{Timeout: Timeout}}
}

// FromRepoURL reaches the repository a clone URL names
// (https://host[/prefix]/owner/repo[.git]), with a token.
func FromRepoURL(raw, token string) (*Forge, error) {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") {
		return nil, fmt.Errorf("gitea: %q is not an http(s) repository URL", raw)
	}
	parts := strings.Split(strings.Trim(u.Path, "/"), "/")
	if len(parts) < 2 {
		return nil, fmt.Errorf("gitea: %q does not name owner/repository", raw)
	}
	owner, repo := parts[len(parts)-2], strings.TrimSuffix(parts[len(parts)-1], ".git")
	u.Path = "/" + strings.Join(parts[:len(parts)-2], "/")
	u.User, u.RawQuery, u.Fragment = nil, "", ""
	return New(u.String(), owner, repo, token), nil
}

// client is a client bound to ctx: the SDK takes a context per client,
// not per call, and creating one costs nothing (the version check is off:
// keel uses only calls every supported Gitea has).
func (f *Forge) client(ctx context.Context) (*sdk.Client, error) {
	return sdk.NewClient(f.baseURL, sdk.SetToken(f.token), sdk.SetHTTPClient(f.http),
		sdk.SetContext(ctx), sdk.SetGiteaVersion(""))
}

// OpenPullRequest implements forge.Forge.
func (f *Forge) OpenPullRequest(ctx context.Context, n forge.NewPullRequest) (*forge.PullRequest, error) {
	c, err := f.client(ctx)
	if err != nil {
		return nil, err
	}
	pr, _, err := c.CreatePullRequest(f.owner, f.repo, sdk.CreatePullRequestOption{
		Head: n.Head, Base: n.Base, Title: n.Title, Body: n.Body,
	})
	if err != nil {
		return nil, fmt.Errorf("gitea: opening a pull request of %s into %s: %w", n.Head, n.Base, err)
	}
	return convert(pr), nil
}

// PullRequest implements forge.Forge.
func (f *Forge) PullRequest(ctx context.Context, number int64) (*forge.PullRequest, error) {
	c, err := f.client(ctx)
	if err != nil {
		return nil, err
	}
	pr, resp, err := c.GetPullRequest(f.owner, f.repo, number)
	if resp != nil && resp.StatusCode == http.StatusNotFound {
		return nil, fmt.Errorf("gitea: pull request %d: %w", number, forge.ErrNotFound)
	}
	if err != nil {
		return nil, fmt.Errorf("gitea: reading pull request %d: %w", number, err)
	}
	return convert(pr), nil
}

// OpenPullRequests implements forge.Forge.
func (f *Forge) OpenPullRequests(ctx context.Context) ([]forge.PullRequest, error) {
	c, err := f.client(ctx)
	if err != nil {
		return nil, err
	}
	const pageSize = 50
	var out []forge.PullRequest
	for page := 1; len(out) < forge.MaxOpen; page++ {
		prs, _, err := c.ListRepoPullRequests(f.owner, f.repo, sdk.ListPullRequestsOptions{
			ListOptions: sdk.ListOptions{Page: page, PageSize: pageSize}, State: sdk.StateOpen,
		})
		if err != nil {
			return nil, fmt.Errorf("gitea: listing open pull requests: %w", err)
		}
		for _, pr := range prs {
			out = append(out, *convert(pr))
		}
		if len(prs) < pageSize {
			break
		}
	}
	return out, nil
}

// Comment implements forge.Forge.
func (f *Forge) Comment(ctx context.Context, number int64, body string) error {
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	if _, _, err := c.CreateIssueComment(f.owner, f.repo, number, sdk.CreateIssueCommentOption{Body: body}); err != nil {
		return fmt.Errorf("gitea: commenting on pull request %d: %w", number, err)
	}
	return nil
}

// SetStatus implements forge.Forge.
func (f *Forge) SetStatus(ctx context.Context, sha string, s forge.Status) error {
	c, err := f.client(ctx)
	if err != nil {
		return err
	}
	_, _, err = c.CreateStatus(f.owner, f.repo, sha, sdk.CreateStatusOption{
		State: sdk.StatusState(s.State), Context: s.Context, Description: s.Description, TargetURL: s.TargetURL,
	})
	if err != nil {
		return fmt.Errorf("gitea: setting status %s on %s: %w", s.Context, sha, err)
	}
	return nil
}

func convert(pr *sdk.PullRequest) *forge.PullRequest {
	out := &forge.PullRequest{Number: pr.Index, URL: pr.HTMLURL, State: forge.Open, Body: pr.Body}
	if pr.Head != nil {
		out.Head = pr.Head.Ref
	}
	switch {
	case pr.HasMerged:
		out.State = forge.Merged
		if pr.MergedCommitID != nil {
			out.MergeCommit = *pr.MergedCommitID
		}
	case pr.State == sdk.StateClosed:
		out.State = forge.Closed
	}
	return out
}
