package restapi

import (
	"github.com/gin-gonic/gin"
)

// apiRoutes registers the routes beyond the template and cluster basics
// (templates.go, clusters.go): updates, deletes, actions, nodegroups,
// quotas, stats, mservices, federations and credentials. Microversion gates
// are middlewares so that an out-of-range call is a 406 before anything
// else, as in Magnum.
func (s *Server) apiRoutes(r *gin.RouterGroup) {
	r.PATCH("/clustertemplates/:ident", s.updateTemplate)
	r.DELETE("/clustertemplates/:ident", s.deleteTemplate)

	r.PATCH("/clusters/:ident", s.updateCluster)
	r.DELETE("/clusters/:ident", s.deleteCluster)
	r.POST("/clusters/:ident/actions/resize", requireVersion(7, "resize"), s.resizeCluster)
	r.POST("/clusters/:ident/actions/upgrade", requireVersion(7, "upgrade"), s.upgradeCluster)

	r.GET("/clusters/:ident/nodegroups", requireVersion(9, "get_all"), s.listNodeGroups)
	r.GET("/clusters/:ident/nodegroups/:ng", requireVersion(9, "get_one"), s.getNodeGroup)
	r.POST("/clusters/:ident/nodegroups", requireVersion(9, "post"), s.createNodeGroup)
	r.PATCH("/clusters/:ident/nodegroups/:ng", requireVersion(9, "patch"), s.updateNodeGroup)
	r.DELETE("/clusters/:ident/nodegroups/:ng", requireVersion(9, "delete"), s.deleteNodeGroup)

	r.GET("/quotas", s.listQuotas)
	r.GET("/quotas/:project/:resource", s.getQuota)
	r.POST("/quotas", s.createQuota)
	r.PATCH("/quotas/:project/:resource", s.updateQuota)
	r.DELETE("/quotas/:project/:resource", s.deleteQuota)

	r.GET("/stats", s.stats)
	r.GET("/mservices", s.listServices)

	r.GET("/federations", s.listFederations)
	r.GET("/federations/detail", s.listFederations)
	r.GET("/federations/:ident", s.getFederation)
	r.POST("/federations", s.createFederation)
	r.PATCH("/federations/:ident", s.updateFederation)
	r.DELETE("/federations/:ident", s.deleteFederation)

	r.PATCH("/credentials/:ident", requireVersion(12, "patch"), s.rotateCredentials)
}
