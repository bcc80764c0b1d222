package readmodel

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"strings"
	"time"

	"github.com/google/uuid"
	"github.com/jmoiron/sqlx"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/status"
)

// The notification outbox (docs/notifications.md). A row is written in the
// same transaction as what it reports: the projection of the commit that
// starts an operation (pending), the status change that settles it
// (success, failure), the removal of a deleted cluster (delete success).
// The projection's cursor (projected_revision) is in that transaction
// too, so a crash between a commit and its projection loses nothing: the
// next projection writes both. The leader's sender (notify/) publishes the
// rows in order and deletes each once the broker confirmed it.

// Notification is one outbox row.
type Notification struct {
	Seq   int64
	Event oslo.Event
}

// outboxTable: seq orders the rows (per cluster too, as one sender sends
// them in seq order).
func outboxTable(postgres bool) string {
	seq := "INTEGER PRIMARY KEY AUTOINCREMENT"
	if postgres {
		seq = "BIGSERIAL PRIMARY KEY"
	}
	return `CREATE TABLE IF NOT EXISTS outbox (seq ` + seq + `, cluster_uuid TEXT NOT NULL, event TEXT NOT NULL)`
}

// eventSource is what a notification says of the change's origin.
type eventSource struct {
	action, outcome string
	origin
	requestID string
	system    bool
	at        time.Time
}

// origin is who started an operation and, when it came from outside the
// API, its commit; clusters.operation_initiator keeps it (as JSON) for the
// notifications that settle the operation.
type origin struct {
	initiator oslo.Initiator
	commit    *oslo.Commit
}

type originJSON struct {
	oslo.Initiator
	Commit *oslo.Commit `json:"commit,omitempty"`
}

func (o origin) MarshalJSON() ([]byte, error) {
	return json.Marshal(originJSON{o.initiator, o.commit})
}

func (o *origin) UnmarshalJSON(b []byte) error {
	var j originJSON
	if err := json.Unmarshal(b, &j); err != nil {
		return err
	}
	o.initiator, o.commit = j.Initiator, j.Commit
	return nil
}

// originOf reads who made a commit, and the request it answered: the
// API's trailers, or the author and the commit itself for a commit from
// outside the API.
func originOf(info *gitstore.CommitInfo) (origin, string) {
	t := info.Trailers
	if t[gitstore.TrailerUser] == "" && t[gitstore.TrailerProject] == "" {
		return origin{oslo.Initiator{Name: info.Author},
			&oslo.Commit{ID: info.Hash.String(), Subject: info.Subject, Author: info.Author}}, ""
	}
	return origin{initiator: oslo.Initiator{UserID: t[gitstore.TrailerUser], ProjectID: t[gitstore.TrailerProject]}}, t[gitstore.TrailerRequestID]
}

// notify records a notification about cluster uuid, read through ex (the
// caller's transaction) with the given status. A cluster the read model
// no longer has is skipped: there is nothing to describe.
func notify(ctx context.Context, ex sqlx.ExtContext, q func(string) string, uuid string, res status.Result, src eventSource) error {
	e, err := clusterEvent(ctx, ex, q, uuid, res, src)
	if err != nil || e == nil {
		return err
	}
	return insertEvent(ctx, ex, q, uuid, e)
}

// clusterEvent is the notification about cluster uuid (nil when the read
// model no longer has it).
func clusterEvent(ctx context.Context, ex sqlx.ExtContext, q func(string) string, uuid string, res status.Result, src eventSource) (*oslo.Event, error) {
	var row struct {
		Doc       string         `db:"doc"`
		Initiator string         `db:"operation_initiator"`
		CAPI      sql.NullString `db:"capi"`
	}
	err := sqlx.GetContext(ctx, ex, &row, q(`SELECT c.doc, c.operation_initiator, o.capi FROM clusters c
		LEFT JOIN observed o ON o.uuid = c.uuid WHERE c.uuid = ?`), uuid)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	var c intent.Cluster
	if err := json.Unmarshal([]byte(row.Doc), &c); err != nil {
		return nil, err
	}
	if src.system && row.Initiator != "" {
		// A settled status names who started the operation (and how).
		_ = json.Unmarshal([]byte(row.Initiator), &src.origin)
	}
	data, err := clusterData(ctx, ex, q, &c, res, row.CAPI.String)
	if err != nil {
		return nil, err
	}
	return &oslo.Event{MessageID: uuid4(), Action: src.action, Outcome: src.outcome, Time: src.at.UTC(),
		Initiator: src.initiator, RequestID: src.requestID, System: src.system,
		ClusterUUID: c.UUID, ClusterName: c.Name, Cluster: data, Commit: src.commit}, nil
}

// insertEvent writes e to the outbox, through ex.
func insertEvent(ctx context.Context, ex sqlx.ExecerContext, q func(string) string, clusterUUID string, e *oslo.Event) error {
	doc, err := json.Marshal(e)
	if err != nil {
		return err
	}
	_, err = ex.ExecContext(ctx, q(`INSERT INTO outbox (cluster_uuid, event) VALUES (?, ?)`), clusterUUID, string(doc))
	return err
}

func uuid4() string { return uuid.NewString() }

// Notifications returns up to limit unsent notifications, oldest first.
func (d *DB) Notifications(ctx context.Context, limit int) ([]Notification, error) {
	var rows []struct {
		Seq   int64  `db:"seq"`
		Event string `db:"event"`
	}
	if err := d.db.SelectContext(ctx, &rows, d.q(`SELECT seq, event FROM outbox ORDER BY seq LIMIT ?`), limit); err != nil {
		return nil, err
	}
	out := make([]Notification, len(rows))
	for i, r := range rows {
		out[i].Seq = r.Seq
		if err := json.Unmarshal([]byte(r.Event), &out[i].Event); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// NotificationSent removes a notification the broker confirmed.
func (d *DB) NotificationSent(ctx context.Context, seq int64) error {
	_, err := d.db.ExecContext(ctx, d.q(`DELETE FROM outbox WHERE seq = ?`), seq)
	return err
}

// NotificationBacklog counts the unsent notifications.
func (d *DB) NotificationBacklog(ctx context.Context) (int64, error) {
	var n int64
	err := d.db.GetContext(ctx, &n, `SELECT COUNT(*) FROM outbox`)
	return n, err
}

// TrimNotifications drops the oldest unsent notifications beyond max (the
// outbox's bound) and returns how many it dropped.
func (d *DB) TrimNotifications(ctx context.Context, max int64) (int64, error) {
	res, err := d.db.ExecContext(ctx, d.q(`DELETE FROM outbox WHERE seq <= (SELECT seq FROM outbox ORDER BY seq DESC LIMIT 1 OFFSET ?)`), max)
	if err != nil {
		return 0, err
	}
	return res.RowsAffected()
}

// settled maps a status change to the notification Magnum's periodic
// status sync sends for it: an operation in progress (or not seen yet)
// that completed or failed. ROLLBACK_* is an update's, as in Magnum.
// DELETE_COMPLETE is left to removeGone, which notifies it as the row
// goes (the status is derived just before).
func settled(prev, now string) (action, outcome string, ok bool) {
	if prev == now || now == status.DeleteComplete || (prev != "" && !strings.HasSuffix(prev, "_IN_PROGRESS")) {
		return "", "", false
	}
	op, result, _ := strings.Cut(now, "_")
	action = map[string]string{"CREATE": oslo.ActionCreate, "UPDATE": oslo.ActionUpdate, "ROLLBACK": oslo.ActionUpdate, "DELETE": oslo.ActionDelete}[op]
	outcome = map[string]string{"COMPLETE": oslo.OutcomeSuccess, "FAILED": oslo.OutcomeFailure}[result]
	if action == "" || outcome == "" {
		return "", "", false
	}
	return action, outcome, true
}
