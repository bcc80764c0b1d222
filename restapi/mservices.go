package restapi

import (
	"net/http"
	"time"

	"github.com/gin-gonic/gin"
)

// ServiceDownTime is how old a heartbeat may be before /v1/mservices
// reports the process down (Magnum's service_down_time default).
const ServiceDownTime = 180 * time.Second

// listServices is GET /v1/mservices (admin): keel's own processes, from the
// heartbeats each instance records in the read model (as binary
// "magnum-conductor", the role keel plays: docs/api.md, difference 16).
func (s *Server) listServices(c *gin.Context) error {
	if err := checkQuery(c); err != nil {
		return err
	}
	if err := s.enforce(c, "magnum-service:get_all", nil); err != nil {
		return err
	}
	svcs, err := s.cfg.DB.ListServices(c.Request.Context())
	if err != nil {
		return err
	}
	out := mservicesView{MServices: make([]mserviceView, 0, len(svcs))}
	for _, sv := range svcs {
		state := "up"
		if time.Since(sv.UpdatedAt) > ServiceDownTime {
			state = "down"
		}
		created, updated := sv.CreatedAt, sv.UpdatedAt
		out.MServices = append(out.MServices, mserviceView{
			ID: sv.ID, Host: sv.Host, Binary: sv.Binary, State: state, ReportCount: sv.ReportCount,
			CreatedAt: timestamp(&created), UpdatedAt: timestamp(&updated),
		})
	}
	c.JSON(http.StatusOK, out)
	return nil
}
