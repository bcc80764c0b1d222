package restapi

import (
	"net/http"

	"github.com/gin-gonic/gin"

	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/policy"
)

func (s *Server) policy() *policy.Policy {
	if s.cfg.Policy != nil {
		return s.cfg.Policy
	}
	return defaultPolicy
}

var defaultPolicy = policy.Default()

// enforce checks rule for the request's caller and returns Magnum's 403.
func (s *Server) enforce(c *gin.Context, rule string, target policy.Target) error {
	if s.policy().Allowed(rule, auth.Of(c), target) {
		return nil
	}
	return apierr.Forbidden("Policy doesn't allow %s to be performed.", rule)
}

// requirePolicy is enforce as a middleware for routes whose target is the
// caller itself (lists, creates).
func (s *Server) requirePolicy(rule string) gin.HandlerFunc {
	return guard(func(c *gin.Context) error { return s.enforce(c, rule, nil) })
}

// allProjects reports whether an admin spans every project on a route that
// switches on all_tenants for admins (Magnum checks the *_all_projects rule
// only for admins, and a denial is a 403). As Magnum's context.all_tenants,
// the switch then holds for the rest of the request: the template and
// cluster lookups that follow see every project (spansAllProjects).
func (s *Server) allProjects(c *gin.Context, rule string) (bool, error) {
	creds := auth.Of(c)
	if !creds.IsAdmin() {
		return false, nil
	}
	if err := s.enforce(c, rule, nil); err != nil {
		return false, err
	}
	c.Set(ctxAllProjects, true)
	return true, nil
}

const ctxAllProjects = "keel.all_projects"

// spansAllProjects reports whether allProjects switched on all_tenants for
// this request. Without it, every caller, admins included, sees its own
// project (and the public templates).
func spansAllProjects(c *gin.Context) bool { return c.GetBool(ctxAllProjects) }

// requireAllProjects is allProjects as a middleware, for the list and get
// routes.
func (s *Server) requireAllProjects(rule string) gin.HandlerFunc {
	return guard(func(c *gin.Context) error {
		_, err := s.allProjects(c, rule)
		return err
	})
}

// notAuthorized is Magnum's bare NotAuthorized.
func notAuthorized() *apierr.Error {
	return &apierr.Error{Status: http.StatusForbidden, Msg: "Not authorized."}
}

// templateGetPolicy is clustertemplate:get on the template, which Magnum
// skips for public templates (any authenticated caller may read those).
// When the lookup fails, the rule is checked with the caller as target
// before the lookup's 404 or 409 is answered. A middleware (guard).
func (s *Server) templateGetPolicy(c *gin.Context) error {
	creds := auth.Of(c)
	t, err := s.findTemplate(c, c.Param("ident"), false)
	if err == nil && (t.Public || s.policy().Allowed("clustertemplate:get", creds, templateTarget(t))) ||
		err != nil && s.policy().Allowed("clustertemplate:get", creds, nil) {
		return nil
	}
	return apierr.Forbidden("Policy doesn't allow clustertemplate:get to be performed.")
}
