// Package forge is keel's view of a Git forge (Gitea/Forgejo, GitHub,
// GitLab): the few calls review mode needs, behind one small interface so
// that restapi and cmd/keel know nothing of a forge's client library. An
// adapter per forge lives in a sub-package (forge/gitea). The package knows
// nothing of keel's other stages either: it opens pull requests, reads their
// state, comments and sets commit statuses, no more.
package forge

import (
	"context"
	"errors"
)

// State is a pull request's state, as review mode needs it.
type State string

const (
	// Open: waiting for review.
	Open State = "open"
	// Merged: its head is on the base branch.
	Merged State = "merged"
	// Closed: closed without merging; its change is dropped.
	Closed State = "closed"
)

// NewPullRequest is what OpenPullRequest opens: Head (a branch already
// pushed to the repository) into Base.
type NewPullRequest struct {
	Head, Base  string
	Title, Body string
}

// PullRequest is a pull request (a merge request on GitLab).
type PullRequest struct {
	Number int64
	URL    string // for people: the web page
	State  State
	Head   string // the head branch
	Body   string
	// MergeCommit is the commit that landed on the base branch (Merged only).
	MergeCommit string
}

// CommitState is a commit status check's state.
type CommitState string

const (
	Pending CommitState = "pending"
	Success CommitState = "success"
	Failure CommitState = "failure"
	Error   CommitState = "error"
)

// Status is one commit status check (e.g. context "keel/vet").
type Status struct {
	State       CommitState
	Context     string
	Description string
	TargetURL   string
}

// MaxOpen bounds what OpenPullRequests reads: a repository with more open
// pull requests than that has a problem a listing will not solve.
const MaxOpen = 1000

// ErrNotFound is returned for a pull request the forge does not know.
var ErrNotFound = errors.New("forge: not found")

// Forge is one repository on a forge, reached with keel's token.
type Forge interface {
	// OpenPullRequest opens a pull request of a pushed branch.
	OpenPullRequest(ctx context.Context, pr NewPullRequest) (*PullRequest, error)
	// PullRequest reads a pull request's current state.
	PullRequest(ctx context.Context, number int64) (*PullRequest, error)
	// OpenPullRequests lists the open pull requests (at most MaxOpen).
	OpenPullRequests(ctx context.Context) ([]PullRequest, error)
	// Comment adds a comment to a pull request.
	Comment(ctx context.Context, number int64, body string) error
	// SetStatus sets a status check on a commit.
	SetStatus(ctx context.Context, sha string, s Status) error
}
