package restapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/restapi/apierr"
)

// Federations are a stub in Magnum: POST answers 202 with a uuid that never
// exists (the conductor raises NotImplemented). keel answers honestly: no
// federation ever exists, so lists are empty, lookups are 404 and a create
// is 501 Not Implemented. Policy and query rules are Magnum's.

func (s *Server) listFederations(c *gin.Context) error {
	if err := checkQuery(c, "limit", "marker", "sort_key", "sort_dir"); err != nil {
		return err
	}
	rule := "federation:get_all"
	if c.FullPath() == "/v1/federations/detail" {
		rule = "federation:detail"
	}
	if err := s.enforce(c, rule, nil); err != nil {
		return err
	}
	if _, _, err := paginate(c, []struct{}(nil), s.cfg.MaxLimit, "federations"); err != nil {
		return err // an unknown marker is a 404 as anywhere else
	}
	c.JSON(http.StatusOK, federationsView{Federations: []struct{}{}})
	return nil
}

func federationNotFound(ident string) *apierr.Error {
	return apierr.NotFound("Federation %s could not be found.", ident)
}

func (s *Server) getFederation(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "federation:get", nil); err != nil {
		return err
	}
	return federationNotFound(c.Param("ident"))
}

func (s *Server) createFederation(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "federation:create", nil); err != nil {
		return err
	}
	return apierr.Errorf(http.StatusNotImplemented, "Federations are not implemented by keel.")
}

func (s *Server) updateFederation(c *gin.Context) error {
	if err := checkQuery(c, "rollback"); err != nil {
		return err
	}
	if err := s.enforce(c, "federation:update", nil); err != nil {
		return err
	}
	return federationNotFound(c.Param("ident"))
}

func (s *Server) deleteFederation(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "federation:delete", nil); err != nil {
		return err
	}
	return federationNotFound(c.Param("ident"))
}
