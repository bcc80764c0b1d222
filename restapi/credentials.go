package restapi

import (
	"net/http"

	"github.com/gin-gonic/gin"
)

// rotateCredentials is PATCH /v1/credentials/{cluster_ident} (1.12+): the
// cluster gets a new application credential, made with the caller's token
// (docs/secrets.md, "Rotating the credential"). The lookup, policy
// (project member, no admin clause) and version gate are Magnum's, and the
// body is ignored as Magnum ignores it.
func (s *Server) rotateCredentials(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	view, err := s.lookupCluster(c, c.Param("ident"), false)
	if err != nil {
		return err
	}
	if err := s.enforce(c, "credential:rotate", clusterTarget(view)); err != nil {
		return err
	}
	if err := notWhileDeleting(view, "Rotating the credential of"); err != nil {
		return err
	}
	if err := s.rotateClusterCredential(c.Request.Context(), callerOf(c), view); err != nil {
		return err
	}
	c.JSON(http.StatusAccepted, uuidReply{UUID: view.UUID})
	return nil
}
