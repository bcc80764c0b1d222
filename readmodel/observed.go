package readmodel

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"time"

	"github.com/jmoiron/sqlx"

	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/status"
)

// The reconciler and the status watchers write what they observe here. Each
// write re-derives the status and latches completion: once a revision's
// operation completed, the cluster stays *_COMPLETE for it (its health may
// change, its status does not).

func (d *DB) ensureObserved(ctx context.Context, uuid string) error {
	_, err := d.db.ExecContext(ctx, d.q(`INSERT INTO observed (uuid) VALUES (?) ON CONFLICT (uuid) DO NOTHING`), uuid)
	return err
}

// Applied implements reconciler.Sink. A failed attempt keeps the last good
// revision and records why the new one failed. generation is the CAPI
// Cluster's metadata.generation after the apply (0: unknown).
func (d *DB) Applied(ctx context.Context, uuid, revision string, generation int64, applyErr error) {
	var stalled *status.Stalled
	if errors.As(applyErr, &stalled) {
		d.observe(ctx, uuid, `UPDATE observed SET apply_error = ?, apply_stalled = 1 WHERE uuid = ?`, stalled.Message, uuid)
		return
	}
	if applyErr != nil {
		d.observe(ctx, uuid, `UPDATE observed SET apply_error = ?, apply_stalled = 0 WHERE uuid = ?`, applyErr.Error(), uuid)
		return
	}
	d.observe(ctx, uuid, `UPDATE observed SET applied_revision = ?, applied_generation = ?, apply_error = '', apply_stalled = 0 WHERE uuid = ?`, revision, generation, uuid)
}

// Deleting implements reconciler.Sink.
func (d *DB) Deleting(ctx context.Context, uuid, reason string) {
	d.observe(ctx, uuid, `UPDATE observed SET deleting_reason = ?, delete_failed = 0 WHERE uuid = ?`, reason, uuid)
}

// Retiring implements reconciler.Sink: while a credential rotation waits
// (reason), the cluster stays UPDATE_IN_PROGRESS with it.
func (d *DB) Retiring(ctx context.Context, uuid, reason string) {
	d.observe(ctx, uuid, `UPDATE observed SET retiring_reason = ? WHERE uuid = ?`, reason, uuid)
}

// DeleteFailed implements reconciler.Sink: the cluster shows
// DELETE_FAILED with reason until the teardown moves on (Deleting, Gone).
func (d *DB) DeleteFailed(ctx context.Context, uuid, reason string) {
	d.observe(ctx, uuid, `UPDATE observed SET deleting_reason = ?, delete_failed = 1 WHERE uuid = ?`, reason, uuid)
}

// Gone implements reconciler.Sink: the cluster's objects are all deleted,
// so it leaves the read model (Magnum's DELETE_COMPLETE rows vanish too).
// The reconciler may see a folder leave Git before the projection does (a
// commit from outside keel's API): the mark makes the projection remove
// the row when it catches up, instead of leaving it DELETE_COMPLETE.
func (d *DB) Gone(ctx context.Context, uuid string) {
	d.observe(ctx, uuid, `UPDATE observed SET gone = 1 WHERE uuid = ?`, uuid)
	err := d.inTx(ctx, func(tx *sqlx.Tx) error { return removeGone(ctx, tx, d.q, uuid) })
	if err != nil {
		slog.Error("read model: removing a deleted cluster", "cluster", uuid, "err", err)
	}
}

// inTx runs fn in a transaction, committed when fn succeeds.
func (d *DB) inTx(ctx context.Context, fn func(*sqlx.Tx) error) error {
	tx, err := d.db.BeginTxx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback() //nolint:errcheck // no-op after commit
	if err := fn(tx); err != nil {
		return err
	}
	return tx.Commit()
}

// removeGone deletes a cluster that left Git and whose objects are gone,
// and records the notification that its deletion succeeded (Magnum's
// DELETE_COMPLETE).
func removeGone(ctx context.Context, ex sqlx.ExtContext, q func(string) string, uuid string) error {
	var n int
	if err := sqlx.GetContext(ctx, ex, &n, q(`SELECT COUNT(*) FROM clusters WHERE uuid = ? AND in_git = 0
		AND uuid IN (SELECT uuid FROM observed WHERE gone = 1)`), uuid); err != nil {
		return err
	}
	if n == 1 {
		src := eventSource{action: oslo.ActionDelete, outcome: oslo.OutcomeSuccess, system: true, at: time.Now()}
		if err := notify(ctx, ex, q, uuid, status.Result{Status: status.DeleteComplete}, src); err != nil {
			return err
		}
	}
	for _, s := range []string{
		`DELETE FROM nodegroups WHERE cluster_uuid = ? AND cluster_uuid IN (SELECT uuid FROM clusters WHERE in_git = 0 AND uuid IN (SELECT uuid FROM observed WHERE gone = 1))`,
		`DELETE FROM clusters WHERE uuid = ? AND in_git = 0 AND uuid IN (SELECT uuid FROM observed WHERE gone = 1)`,
		`DELETE FROM observed WHERE uuid = ? AND uuid NOT IN (SELECT uuid FROM clusters)`,
	} {
		if _, err := ex.ExecContext(ctx, q(s), uuid); err != nil {
			return err
		}
	}
	return nil
}

// SetObservation records what the management cluster shows of a cluster.
func (d *DB) SetObservation(ctx context.Context, uuid string, o *status.Observation) {
	data, err := json.Marshal(o)
	if err != nil {
		return
	}
	d.observe(ctx, uuid, `UPDATE observed SET capi = ? WHERE uuid = ?`, string(data), uuid)
	// Nodegroups that left Git go once their MachineDeployment is gone.
	var leaving []string
	if err := d.db.SelectContext(ctx, &leaving, d.q(`SELECT name FROM nodegroups WHERE cluster_uuid = ? AND in_git = 0`), uuid); err != nil {
		return
	}
	var v *ClusterView
	for _, name := range leaving {
		if o.NodeGroups[name].Exists {
			continue
		}
		if v == nil {
			if v, err = d.GetClusterByUUID(ctx, uuid); err != nil || v == nil {
				return
			}
		}
		if err := d.nodeGroupGone(ctx, v, name); err != nil {
			slog.Error("read model: nodegroup gone", "cluster", uuid, "nodegroup", name, "err", err)
		}
	}
}

func (d *DB) observe(ctx context.Context, uuid, query string, args ...any) {
	if err := d.ensureObserved(ctx, uuid); err != nil {
		slog.Error("read model: observation", "cluster", uuid, "err", err)
		return
	}
	if _, err := d.db.ExecContext(ctx, d.q(query), args...); err != nil {
		slog.Error("read model: observation", "cluster", uuid, "err", err)
		return
	}
	if err := d.latch(ctx, uuid); err != nil {
		slog.Error("read model: status", "cluster", uuid, "err", err)
	}
}

// latch records the desired revision as completed when the derived status
// says the operation completed.
func (d *DB) latch(ctx context.Context, uuid string) error {
	v, err := d.GetClusterByUUID(ctx, uuid)
	if err != nil || v == nil {
		return err
	}
	if v.Result.Status == status.CreateComplete || v.Result.Status == status.UpdateComplete {
		if _, err = d.db.ExecContext(ctx, d.q(`UPDATE observed SET completed_revision = ? WHERE uuid = ?`), v.desiredRevision, uuid); err != nil {
			return err
		}
	}
	if err := d.inTx(ctx, func(tx *sqlx.Tx) error {
		if err := statusChanged(ctx, tx, d.q, uuid, v.Result); err != nil {
			return err
		}
		return healthChanged(ctx, tx, d.q, v)
	}); err != nil {
		return err
	}
	return d.nodeGroupsSettled(ctx, v)
}

// statusChanged records a new derived status and, when it settles an
// operation, its notification, in one transaction: a status change is
// never without its notification, nor notified twice (the row guard).
func statusChanged(ctx context.Context, tx *sqlx.Tx, q func(string) string, uuid string, res status.Result) error {
	var prev string
	if err := tx.GetContext(ctx, &prev, q(`SELECT last_status FROM observed WHERE uuid = ?`), uuid); err != nil {
		return err
	}
	now := time.Now().UTC()
	r, err := tx.ExecContext(ctx, q(`UPDATE observed SET last_status = ?, status_changed_at = ? WHERE uuid = ? AND last_status <> ?`),
		res.Status, now.Format(time.RFC3339Nano), uuid, res.Status)
	if err != nil {
		return err
	}
	action, outcome, ok := settled(prev, res.Status)
	if n, err := r.RowsAffected(); err != nil || n == 0 || !ok {
		return err
	}
	return notify(ctx, tx, q, uuid, res, eventSource{action: action, outcome: outcome, system: true, at: now})
}
