package write

import (
	"log/slog"

	"github.com/openkeel/keel/gitstore"
)

// Caller is who makes a change, as its commit records it: the API fills it
// from the request's credentials, so that nothing below the handler needs
// the HTTP request.
type Caller struct {
	UserID, UserName, ProjectID string
	// RequestID is the request's x-openstack-request-id (a trailer).
	RequestID string
	// Request is the HTTP method and path, which review mode names a
	// proposal by.
	Request string
	// Log is the request's logger (slog's default when nil).
	Log *slog.Logger
}

// Commit is the commit of one API mutation: authored by the caller, with a
// readable subject and the Keel-* trailers (op is a status.Op* operation).
func (c Caller) Commit(subject, op string, changes []gitstore.Change) *gitstore.Commit {
	name := c.UserName
	if name == "" {
		name = c.UserID
	}
	return &gitstore.Commit{
		Subject: subject,
		Author:  gitstore.Signature{Name: name, Email: c.UserID + "@keel"},
		Trailers: []gitstore.Trailer{
			{Key: gitstore.TrailerRequestID, Value: c.RequestID},
			{Key: gitstore.TrailerProject, Value: c.ProjectID},
			{Key: gitstore.TrailerUser, Value: c.UserID},
			{Key: gitstore.TrailerOperation, Value: op},
		},
		Changes: changes,
	}
}
