package restapi

import (
	"net/http"
	"strings"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
)

// stats is GET /v1/stats?project_id=&type=cluster → {clusters, nodes}
// (not version-gated, as in Magnum). nodes counts every nodegroup's
// node_count, masters included.
func (s *Server) stats(c *gin.Context) error {
	if err := checkQuery(c, "project_id", "type"); err != nil {
		return err
	}
	if err := s.enforce(c, "stats:get_all", nil); err != nil {
		return err
	}
	if t := c.DefaultQuery("type", "cluster"); strings.ToLower(t) != "cluster" {
		return apierr.BadRequest("Invalid stats type. Allowed values are 'cluster'")
	}
	creds := auth.Of(c)
	project, given := c.GetQuery("project_id")
	scope := readmodel.Scope{ProjectID: creds.ProjectID}
	switch {
	case creds.IsAdmin() && (!given || project == ""):
		scope.All = true // an admin without project_id sees the totals
	case creds.IsAdmin():
		scope.ProjectID = project
	case given && project != creds.ProjectID:
		return notAuthorized()
	}
	clusters, nodes, err := s.cfg.DB.ClusterStats(c.Request.Context(), scope)
	if err != nil {
		return err
	}
	c.JSON(http.StatusOK, statsView{Clusters: clusters, Nodes: nodes})
	return nil
}
