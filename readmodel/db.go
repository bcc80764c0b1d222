// Package readmodel is the SQL projection the API answers reads from: the
// intent documents of Git HEAD plus what the reconciler and the status
// watchers observed. SQLite (in-process, modernc.org/sqlite) by default,
// PostgreSQL (pgx) for several API replicas. It holds nothing that cannot be
// rebuilt from Git and the management cluster (`keel db rebuild`).
package readmodel

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver "pgx"
	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite" // SQLite driver "sqlite"
)

// DB is the read model.
type DB struct {
	db       *sqlx.DB
	postgres bool
	// projectMu serialises projections within this process.
	projectMu sync.Mutex
}

// Open opens the read model. dsn is a PostgreSQL URL (postgres://...) or a
// SQLite file path (optionally prefixed sqlite://).
func Open(ctx context.Context, dsn string) (*DB, error) {
	var d *DB
	switch {
	case strings.HasPrefix(dsn, "postgres://") || strings.HasPrefix(dsn, "postgresql://"):
		db, err := sqlx.Open("pgx", dsn)
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(16)
		d = &DB{db: db, postgres: true}
	default:
		file := strings.TrimPrefix(dsn, "sqlite://")
		if err := os.MkdirAll(filepath.Dir(file), 0o755); err != nil {
			return nil, err
		}
		// WAL lets readers run beside the projector; busy_timeout makes
		// concurrent writers wait instead of failing.
		db, err := sqlx.Open("sqlite", "file:"+file+"?_pragma=journal_mode(WAL)&_pragma=busy_timeout(10000)&_pragma=foreign_keys(on)&_pragma=synchronous(NORMAL)")
		if err != nil {
			return nil, err
		}
		db.SetMaxOpenConns(1) // one writer; SQLite serialises anyway
		d = &DB{db: db}
	}
	if err := d.db.PingContext(ctx); err != nil {
		d.db.Close()
		return nil, fmt.Errorf("connecting to the read model: %w", err)
	}
	if err := d.migrate(ctx); err != nil {
		d.db.Close()
		return nil, err
	}
	return d, nil
}

// Ping checks that the database answers (keel's readiness check).
func (d *DB) Ping(ctx context.Context) error { return d.db.PingContext(ctx) }

// Close closes the database.
func (d *DB) Close() error { return d.db.Close() }

// X exposes the database for tests.
func (d *DB) X() *sqlx.DB { return d.db }

var schema = []string{
	`CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS templates (
		uuid TEXT PRIMARY KEY, id BIGINT NOT NULL, project_id TEXT NOT NULL, name TEXT NOT NULL,
		public INTEGER NOT NULL, hidden INTEGER NOT NULL, path TEXT NOT NULL, doc TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS clusters (
		uuid TEXT PRIMARY KEY, id BIGINT NOT NULL, project_id TEXT NOT NULL, name TEXT NOT NULL,
		stack_id TEXT NOT NULL, template_uuid TEXT NOT NULL, dir TEXT NOT NULL, doc TEXT NOT NULL,
		in_git INTEGER NOT NULL, operation TEXT NOT NULL, desired_revision TEXT NOT NULL,
		operation_started TEXT NOT NULL)`,
	`CREATE TABLE IF NOT EXISTS nodegroups (
		uuid TEXT PRIMARY KEY, id BIGINT NOT NULL, cluster_uuid TEXT NOT NULL, project_id TEXT NOT NULL,
		name TEXT NOT NULL, role TEXT NOT NULL, is_default INTEGER NOT NULL, doc TEXT NOT NULL,
		in_git INTEGER NOT NULL DEFAULT 1)`,
	`CREATE TABLE IF NOT EXISTS observed (
		uuid TEXT PRIMARY KEY, applied_revision TEXT NOT NULL DEFAULT '', apply_error TEXT NOT NULL DEFAULT '',
		apply_stalled INTEGER NOT NULL DEFAULT 0,
		completed_revision TEXT NOT NULL DEFAULT '', deleting_reason TEXT NOT NULL DEFAULT '',
		capi TEXT NOT NULL DEFAULT '')`,
	`CREATE TABLE IF NOT EXISTS quotas (
		project_id TEXT PRIMARY KEY, id BIGINT NOT NULL, doc TEXT NOT NULL)`,
	`CREATE INDEX IF NOT EXISTS clusters_project ON clusters (project_id, id)`,
	`CREATE INDEX IF NOT EXISTS nodegroups_cluster ON nodegroups (cluster_uuid, id)`,
	`CREATE INDEX IF NOT EXISTS templates_project ON templates (project_id, id)`,
	// ClustersRotatingCA: the few clusters in a CA rotation, polled.
	`CREATE INDEX IF NOT EXISTS clusters_operation ON clusters (operation)`,
	// A cluster by uuid in any case, or by name (show, update, a page's
	// marker), and by stack id (the observer's CAPI Cluster): without
	// them each scans the project's, or every, cluster.
	`CREATE INDEX IF NOT EXISTS clusters_uuid_lower ON clusters (LOWER(uuid))`,
	`CREATE INDEX IF NOT EXISTS clusters_name ON clusters (name)`,
	`CREATE INDEX IF NOT EXISTS clusters_stack_id ON clusters (stack_id)`,
}

// columns added after the first release: table, column, definition. A
// read model created before gets them at start (SQLite has no ADD COLUMN
// IF NOT EXISTS, so presence is probed).
var addedColumns = [][3]string{
	{"observed", "gone", "INTEGER NOT NULL DEFAULT 0"},
	// The cluster revision (folder tree) that brought the nodegroup: while
	// it is the cluster's desired revision, the nodegroup is being created.
	{"nodegroups", "created_revision", "TEXT NOT NULL DEFAULT ''"},
	// The status last derived for an observation, and when it changed:
	// Magnum's conductor sets updated_at whenever it saves a new status.
	{"observed", "last_status", "TEXT NOT NULL DEFAULT ''"},
	{"observed", "status_changed_at", "TEXT NOT NULL DEFAULT ''"},
	// The teardown gave up the step deleting_reason names (DELETE_FAILED).
	{"observed", "delete_failed", "INTEGER NOT NULL DEFAULT 0"},
	// The CAPI Cluster's generation right after applied_revision was
	// applied: an observation of an older one predates the apply.
	{"observed", "applied_generation", "BIGINT NOT NULL DEFAULT 0"},
	// Who started the cluster's current operation (oslo.Initiator as
	// JSON): the notification of its outcome names them.
	{"clusters", "operation_initiator", "TEXT NOT NULL DEFAULT ''"},
	// The nodegroup's operation whose outcome is still to be notified
	// (create, update, delete; readmodel/outbox_nodegroups.go).
	{"nodegroups", "pending_action", "TEXT NOT NULL DEFAULT ''"},
	// The health status last derived for an observation: a change is
	// notified (readmodel/health.go).
	{"observed", "last_health", "TEXT NOT NULL DEFAULT ''"},
	// What a credential rotation still waits for before it completes
	// (reconciler.Sink.Retiring; "" when nothing).
	{"observed", "retiring_reason", "TEXT NOT NULL DEFAULT ''"},
}

func (d *DB) migrate(ctx context.Context) error {
	for _, s := range append(schema, outboxTable(d.postgres)) {
		if _, err := d.db.ExecContext(ctx, s); err != nil {
			return fmt.Errorf("read model schema: %w", err)
		}
	}
	for _, c := range addedColumns {
		rows, err := d.db.QueryContext(ctx, fmt.Sprintf(`SELECT %s FROM %s LIMIT 0`, c[1], c[0]))
		if err == nil {
			rows.Close()
			continue
		}
		if _, err := d.db.ExecContext(ctx, fmt.Sprintf(`ALTER TABLE %s ADD COLUMN %s %s`, c[0], c[1], c[2])); err != nil {
			return fmt.Errorf("read model schema: adding %s.%s: %w", c[0], c[1], err)
		}
	}
	return nil
}

func (d *DB) q(s string) string { return d.db.Rebind(s) }

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}
