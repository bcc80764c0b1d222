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
	r.PATCH("/clustertemplates/:ident", handle(s.updateTemplate))
	r.DELETE("/clustertemplates/:ident", handle(s.deleteTemplate))

	r.PATCH("/clusters/:ident", handle(s.updateCluster))
	r.DELETE("/clusters/:ident", handle(s.deleteCluster))
	r.POST("/clusters/:ident/actions/resize", requireVersion(7, "resize"), handle(s.resizeCluster))
	r.POST("/clusters/:ident/actions/upgrade", requireVersion(7, "upgrade"), handle(s.upgradeCluster))

	r.GET("/clusters/:ident/nodegroups", requireVersion(9, "get_all"), handle(s.listNodeGroups))
	r.GET("/clusters/:ident/nodegroups/:ng", requireVersion(9, "get_one"), handle(s.getNodeGroup))
	r.POST("/clusters/:ident/nodegroups", requireVersion(9, "post"), handle(s.createNodeGroup))
	r.PATCH("/clusters/:ident/nodegroups/:ng", requireVersion(9, "patch"), handle(s.updateNodeGroup))
	r.DELETE("/clusters/:ident/nodegroups/:ng", requireVersion(9, "delete"), handle(s.deleteNodeGroup))

	r.GET("/quotas", handle(s.listQuotas))
	r.GET("/quotas/:project/:resource", handle(s.getQuota))
	r.POST("/quotas", handle(s.createQuota))
	r.PATCH("/quotas/:project/:resource", handle(s.updateQuota))
	r.DELETE("/quotas/:project/:resource", handle(s.deleteQuota))

	r.GET("/stats", handle(s.stats))
	r.GET("/mservices", handle(s.listServices))

	r.GET("/federations", handle(s.listFederations))
	r.GET("/federations/detail", handle(s.listFederations))
	r.GET("/federations/:ident", handle(s.getFederation))
	r.POST("/federations", handle(s.createFederation))
	r.PATCH("/federations/:ident", handle(s.updateFederation))
	r.DELETE("/federations/:ident", handle(s.deleteFederation))

	r.PATCH("/credentials/:ident", requireVersion(12, "patch"), handle(s.rotateCredentials))
}
