package readmodel

import (
	"context"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/status"
)

// Health is a cluster's health_status and health_status_reason: those set
// through the API (the auto-healer's PATCH) over the observed ones (o); a
// nil status when neither is known. Magnum polls health only once a
// cluster was created, so unless whileCreating the observed health of a
// cluster in CREATE_IN_PROGRESS or CREATE_FAILED (res) is not shown: no
// health yet, not UNHEALTHY. The API and the notifications show the same.
func Health(cl *intent.Cluster, res status.Result, o *status.Observation, whileCreating bool) (*string, map[string]string) {
	if cl.HealthStatus != nil {
		return cl.HealthStatus, cl.HealthStatusReason
	}
	creating := res.Status == status.CreateInProgress || res.Status == status.CreateFailed
	if o != nil && o.Health != "" && (whileCreating || !creating) {
		return &o.Health, o.HealthReason
	}
	return nil, nil
}

// healthPolled are the statuses in which Magnum's periodic health sync
// updates a cluster's health (magnum/service/periodic.py): not while it is
// created, failed or deleted, when its machines come and go by design.
var healthPolled = map[string]bool{status.CreateComplete: true, status.UpdateComplete: true,
	status.UpdateInProgress: true}

// healthChanged records the health status v shows and, when it changed
// from a known one, notifies the change (magnum.cluster.health, an
// addition: Magnum sends nothing when its health poll sees a change). The
// first health a cluster shows is not a change: its create's success
// carries it. The service, not whoever started the last operation, is the
// initiator.
func healthChanged(ctx context.Context, tx *sqlx.Tx, q func(string) string, v *ClusterView) error {
	h, reason := Health(&v.Cluster, v.Result, v.Observed, false)
	if h == nil || !healthPolled[v.Result.Status] {
		return nil
	}
	var prev string
	if err := tx.GetContext(ctx, &prev, q(`SELECT last_health FROM observed WHERE uuid = ?`), v.UUID); err != nil {
		return err
	}
	if prev == *h {
		return nil
	}
	if _, err := tx.ExecContext(ctx, q(`UPDATE observed SET last_health = ? WHERE uuid = ?`), *h, v.UUID); err != nil || prev == "" {
		return err
	}
	src := eventSource{action: oslo.ActionUpdate, outcome: oslo.OutcomeSuccess, at: time.Now().UTC(),
		origin: origin{initiator: oslo.Initiator{Name: "keel"}}}
	e, err := clusterEvent(ctx, tx, q, v.UUID, v.Result, src)
	if err != nil || e == nil {
		return err
	}
	e.System = true // an admin context, as Magnum's periodic tasks'
	if reason == nil {
		reason = map[string]string{}
	}
	e.Health = &oslo.HealthChange{Previous: prev, Status: *h, Reason: reason}
	return insertEvent(ctx, tx, q, v.UUID, e)
}
