package readmodel

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"time"

	"github.com/openkeel/keel/intent"
)

// Queries behind the quota, stats and mservices routes of the API.

// ListQuotas returns the quotas of a scope in id order.
func (d *DB) ListQuotas(ctx context.Context, s Scope) ([]*intent.Quota, error) {
	w, args := s.where("project_id")
	var docs []string
	if err := d.db.SelectContext(ctx, &docs, d.q("SELECT doc FROM quotas WHERE "+w+" ORDER BY id"), args...); err != nil {
		return nil, err
	}
	out := make([]*intent.Quota, len(docs))
	for i, doc := range docs {
		out[i] = &intent.Quota{}
		if err := json.Unmarshal([]byte(doc), out[i]); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// GetQuota returns a project's quota, or nil.
func (d *DB) GetQuota(ctx context.Context, project string) (*intent.Quota, error) {
	var doc string
	err := d.db.GetContext(ctx, &doc, d.q(`SELECT doc FROM quotas WHERE project_id = ?`), project)
	if errors.Is(err, sql.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	q := &intent.Quota{}
	return q, json.Unmarshal([]byte(doc), q)
}

// ClusterStats counts a scope's clusters and the nodes of all their
// nodegroups, masters included (Magnum's /v1/stats). Clusters being deleted
// still count, as Magnum's rows do until the deletion completes.
func (d *DB) ClusterStats(ctx context.Context, s Scope) (clusters, nodes int64, err error) {
	w, args := s.where("project_id")
	if err := d.db.GetContext(ctx, &clusters, d.q("SELECT COUNT(*) FROM clusters WHERE "+w), args...); err != nil {
		return 0, 0, err
	}
	var docs []string
	if err := d.db.SelectContext(ctx, &docs, d.q("SELECT doc FROM nodegroups WHERE "+w), args...); err != nil {
		return 0, 0, err
	}
	for _, doc := range docs {
		var ng intent.NodeGroup
		if err := json.Unmarshal([]byte(doc), &ng); err != nil {
			return 0, 0, err
		}
		nodes += ng.NodeCount
	}
	return clusters, nodes, nil
}

// Service is a keel process as /v1/mservices reports it.
type Service struct {
	ID          int64     `db:"id"`
	Host        string    `db:"host"`
	Binary      string    `db:"bin"`
	ReportCount int64     `db:"report_count"`
	CreatedAt   time.Time `db:"-"`
	UpdatedAt   time.Time `db:"-"`
	Created     string    `db:"created_at"`
	Updated     string    `db:"updated_at"`
}

// The services table lives outside the Git projection: heartbeats are not
// intent. It is created on first use so that older read models need no
// migration step.
const servicesSchema = `CREATE TABLE IF NOT EXISTS services (
	id INTEGER PRIMARY KEY, host TEXT NOT NULL, bin TEXT NOT NULL, report_count BIGINT NOT NULL,
	created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (host, bin))`

const servicesSchemaPG = `CREATE TABLE IF NOT EXISTS services (
	id BIGSERIAL PRIMARY KEY, host TEXT NOT NULL, bin TEXT NOT NULL, report_count BIGINT NOT NULL,
	created_at TEXT NOT NULL, updated_at TEXT NOT NULL, UNIQUE (host, bin))`

func (d *DB) ensureServices(ctx context.Context) error {
	s := servicesSchema
	if d.postgres {
		s = servicesSchemaPG
	}
	_, err := d.db.ExecContext(ctx, s)
	return err
}

// Heartbeat records that the process (host, binary) is alive.
func (d *DB) Heartbeat(ctx context.Context, host, binary string, now time.Time) error {
	if err := d.ensureServices(ctx); err != nil {
		return err
	}
	ts := now.UTC().Format(time.RFC3339Nano)
	_, err := d.db.ExecContext(ctx, d.q(`INSERT INTO services (host, bin, report_count, created_at, updated_at)
		VALUES (?, ?, 1, ?, ?)
		ON CONFLICT (host, bin) DO UPDATE SET report_count = services.report_count + 1, updated_at = excluded.updated_at`),
		host, binary, ts, ts)
	return err
}

// ListServices returns every process that ever reported, in id order.
func (d *DB) ListServices(ctx context.Context) ([]Service, error) {
	if err := d.ensureServices(ctx); err != nil {
		return nil, err
	}
	var out []Service
	if err := d.db.SelectContext(ctx, &out, `SELECT id, host, bin, report_count, created_at, updated_at FROM services ORDER BY id`); err != nil {
		return nil, err
	}
	for i := range out {
		out[i].CreatedAt, _ = time.Parse(time.RFC3339Nano, out[i].Created)
		out[i].UpdatedAt, _ = time.Parse(time.RFC3339Nano, out[i].Updated)
	}
	return out, nil
}
