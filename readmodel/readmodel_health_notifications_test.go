package readmodel_test

import (
	"context"
	"fmt"
	"reflect"
	"testing"

	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/readmodel/rmtest"
	"github.com/openkeel/keel/status"
)

// A change of a created cluster's health status is notified once, as
// magnum.cluster.health (an addition to Magnum) with the previous and the
// new status and its reason, initiated by keel; the first health a
// cluster shows is not a change, and neither is an observation that
// repeats it, nor what a cluster being deleted shows (Magnum's health sync
// skips it too). cluster_data's health_status is the health the API shows.
func TestHealthChangesAreNotified(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newNotifyingFixture(t, dsn, [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			c := f.st.Cluster
			observe := func(health string) {
				o := settledObservation(1)
				o.Health, o.HealthReason = health, map[string]string{"api": "ok", "default-worker-abc.Ready": fmt.Sprint(health == status.Healthy)}
				f.db.SetObservation(ctx, c.UUID, o)
			}
			f.write(status.OpCreate)
			f.db.Applied(ctx, c.UUID, clusterTree(t, f), 0, nil)
			observe(status.Healthy)
			observe(status.Healthy)
			observe(status.Unhealthy)
			observe(status.Unhealthy)
			observe(status.Healthy)
			f.remove()
			f.sync()
			observe(status.Unhealthy) // its machines going: not a health change

			got := f.outboxLines(func(n readmodel.Notification) string {
				e := n.Event
				line := fmt.Sprintf("%s %s %s", e.EventType(), e.Outcome, orDash(e.Cluster.HealthStatus))
				if h := e.Health; h != nil {
					line += fmt.Sprintf(" %s→%s %s by %q", h.Previous, h.Status, h.Reason["default-worker-abc.Ready"], e.Initiator.Name)
				}
				return line
			})
			want := []string{
				"magnum.cluster.create pending -",
				"magnum.cluster.create success HEALTHY",
				"magnum.cluster.health success UNHEALTHY HEALTHY→UNHEALTHY false by \"keel\"",
				"magnum.cluster.health success HEALTHY UNHEALTHY→HEALTHY true by \"keel\"",
				"magnum.cluster.delete pending HEALTHY",
			}
			if !reflect.DeepEqual(got, want) {
				t.Fatalf("outbox:\n%q\nwant\n%q", got, want)
			}
		})
	}
}

func orDash(s *string) string {
	if s == nil {
		return "-"
	}
	return *s
}
