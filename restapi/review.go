package restapi

import (
	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/write"
)

// Reviewer is review mode as the API sees it: "commit or propose" (the
// write path hands it each change before committing it); review.Mode
// implements it, in package review, which the API does not import.
type Reviewer = write.Reviewer

// reviewReason is the review note of a cluster's view ("" without review
// mode or review).
func (s *Server) reviewReason(dir string) string {
	if s.cfg.Review == nil {
		return ""
	}
	return s.cfg.Review.Reason(dir)
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
