package restapi

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/openkeel/keel/status"
)

// As in Magnum: a cluster being created has no health yet (Magnum polls
// health only once it is created), and updated_at follows the cluster's
// changes (Magnum's conductor sets it whenever it saves a new status).
func TestClusterHealthAndUpdatedAtFollowMagnum(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "health", nil)
	uuid := a.cluster(member, "health", tmpl.UUID, 1)
	show := func() map[string]any {
		t.Helper()
		r := a.do(member, "latest", "GET", "/v1/clusters/"+uuid, nil)
		if r.status != http.StatusOK {
			t.Fatalf("GET: %d %s", r.status, r.body)
		}
		return r.json(t)
	}

	c := show()
	if c["status"] != status.CreateInProgress || c["updated_at"] != nil {
		t.Fatalf("right after create: status %v updated_at %v, want CREATE_IN_PROGRESS and no updated_at", c["status"], c["updated_at"])
	}
	// The observer already sees machines that are not healthy yet.
	a.db.SetObservation(context.Background(), uuid, &status.Observation{Exists: true, Health: "UNHEALTHY",
		HealthReason: map[string]string{"api": "nok"}})
	if c := show(); c["status"] != status.CreateInProgress || c["health_status"] != nil {
		t.Fatalf("while creating: status %v health_status %v, want no health yet", c["status"], c["health_status"])
	}
	created := show()["updated_at"]
	if created == nil {
		t.Fatal("updated_at still unset after the observer saw the cluster's status")
	}

	a.complete(uuid) // CREATE_COMPLETE; the fixture's observation has no health
	a.db.SetObservation(context.Background(), uuid, &status.Observation{Exists: true, Available: true, ControlPlaneAvailable: true,
		InfrastructureReady: true, Health: "HEALTHY", HealthReason: map[string]string{"api": "ok"}})
	c = show()
	if c["health_status"] != "HEALTHY" {
		t.Fatalf("once created: health_status %v, want HEALTHY", c["health_status"])
	}
	before, _ := time.Parse(time.RFC3339, created.(string))
	after, err := time.Parse(time.RFC3339, c["updated_at"].(string))
	if err != nil || after.Before(before) {
		t.Fatalf("updated_at %v after the status changed, was %v", c["updated_at"], created)
	}
}
