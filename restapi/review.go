package restapi

import (
	"context"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/schemas"
)

// Reviewer is review mode as the API sees it: "commit or propose". The
// API hands it each change before committing it; review.Mode implements
// it (pull requests, their checks and the webhook live in package review,
// which the API does not import).
type Reviewer interface {
	// Propose sends the change fn makes to a pull request when the site's
	// review policy (cat) covers it (proposed true); else it returns the
	// object the change is about, which the caller commits to main and
	// then reports to Committed. Its errors carry their HTTP status.
	// requestID names the request, request is its method and path.
	Propose(ctx context.Context, requestID, request string, cat *schemas.Catalogue, fn gitstore.UpdateFunc) (proposed bool, object string, err error)
	// Committed tells that a change of object went to main.
	Committed(object string)
	// Reason is the status_reason of an object with a review ("" without).
	Reason(object string) string
}

// reviewReason is the review note of a cluster's view ("" without review
// mode or review).
func (s *Server) reviewReason(dir string) string {
	if s.cfg.Review == nil {
		return ""
	}
	return s.cfg.Review.Reason(dir)
}

// methodPath is the request as a pull request's body shows it.
func methodPath(c *gin.Context) string { return c.Request.Method + " " + c.Request.URL.Path }

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
