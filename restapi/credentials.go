package restapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/restapi/apierr"
)

// rotateCredentials is PATCH /v1/credentials/{cluster_ident} (1.12+). keel
// clusters carry no per-cluster OpenStack credential keel could rotate yet,
// so it answers as Magnum does with a driver that cannot rotate, but with
// an honest 501 instead of Magnum's 500 (NotImplemented surfacing as an
// internal error). The lookup, policy (project member, no admin clause) and
// version gate are Magnum's, and the body is ignored as Magnum ignores it.
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
	return apierr.Errorf(http.StatusNotImplemented, "Rotating the credentials of cluster %s is not supported by keel.", view.UUID)
}
