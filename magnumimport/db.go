package magnumimport

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"slices"
	"strings"
	"time"

	_ "github.com/go-sql-driver/mysql" // MariaDB/MySQL
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL
	_ "modernc.org/sqlite"             // SQLite
)

// KnownVersions are the alembic revisions of Magnum's schema keel reads,
// newest last. 7da8489d6a68 is the head of Debian's python3-magnum (the
// schema the tests make with magnum-db-manage); the later ones are
// upstream Magnum's since, which add the template's driver and observations,
// nodegroups' node_labels and node_taints, drop the trust columns and drop
// stack_id: keel reads columns by name and takes the ones a revision lacks
// as NULL.
var KnownVersions = []string{
	"7da8489d6a68", // Debian bookworm's magnum 15 head
	"c0f832afc4fd", // cluster_template.driver
	"f1d8b0ab8b8d", // cluster_template observations
	"d7e6a4d39fe4", // trust columns dropped
	"b3e1cf4a2d5e", // nodegroup.node_labels, nodegroup.node_taints
	"a0f9c3a8e1b2", // cluster.stack_id, nodegroup.stack_id dropped
}

// ErrUnavailable: the database did not answer.
var ErrUnavailable = errors.New("the Magnum database does not answer")

// ErrUnknownSchema: the schema is not a revision keel reads.
var ErrUnknownSchema = errors.New("unknown Magnum schema version")

// connectTimeout bounds the first contact with the database.
const connectTimeout = 15 * time.Second

// open connects and checks that the database answers.
func open(ctx context.Context, src Source) (*sql.DB, error) {
	db, err := sql.Open(src.Driver, src.DSN)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, src.Display, err)
	}
	db.SetMaxOpenConns(1)
	pctx, cancel := context.WithTimeout(ctx, connectTimeout)
	defer cancel()
	if err := db.PingContext(pctx); err != nil {
		db.Close()
		return nil, fmt.Errorf("%w: %s: %v", ErrUnavailable, src.Display, err)
	}
	return db, nil
}

// readOnlyTx is one read-only transaction over everything the import
// reads, so that it sees one consistent state of a database Magnum may
// still be writing: MariaDB/MySQL and PostgreSQL take READ ONLY with
// REPEATABLE READ; SQLite's file is opened read-only (mode=ro), and its
// transaction is a snapshot already.
func readOnlyTx(ctx context.Context, db *sql.DB, src Source) (*sql.Tx, error) {
	opts := &sql.TxOptions{ReadOnly: true, Isolation: sql.LevelRepeatableRead}
	if src.Dialect == "sqlite" {
		opts = nil
	}
	tx, err := db.BeginTx(ctx, opts)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: starting a read-only transaction: %v", ErrUnavailable, src.Display, err)
	}
	return tx, nil
}

// schemaVersion reads alembic_version and refuses a revision keel does not
// know.
func schemaVersion(ctx context.Context, tx *sql.Tx, src Source) (string, error) {
	var v string
	err := tx.QueryRowContext(ctx, "SELECT version_num FROM alembic_version").Scan(&v)
	if err != nil {
		return "", fmt.Errorf("%w: %s has no readable alembic_version (is it Magnum's database, upgraded with magnum-db-manage?): %v",
			ErrUnknownSchema, src.Display, err)
	}
	if !slices.Contains(KnownVersions, v) {
		return v, fmt.Errorf("%w: %s is at alembic revision %s; keel reads %s. Upgrade Magnum (magnum-db-manage upgrade) to a release keel knows, or keel to one that knows this schema",
			ErrUnknownSchema, src.Display, v, strings.Join(KnownVersions, ", "))
	}
	return v, nil
}

// row is one database row, every column as text (NULL: Valid false).
// database/sql converts each driver's values to text alike: numbers,
// booleans (MySQL's tinyint 0/1, PostgreSQL's true/false) and timestamps.
type row map[string]sql.NullString

// readTable reads every row of a Magnum table, whatever columns its
// revision has.
func readTable(ctx context.Context, tx *sql.Tx, table string) ([]row, error) {
	rs, err := tx.QueryContext(ctx, "SELECT * FROM "+table+" ORDER BY id")
	if err != nil {
		return nil, fmt.Errorf("reading Magnum's %s table: %w", table, err)
	}
	defer rs.Close()
	cols, err := rs.Columns()
	if err != nil {
		return nil, err
	}
	var out []row
	for rs.Next() {
		vals := make([]sql.NullString, len(cols))
		ptrs := make([]any, len(cols))
		for i := range vals {
			ptrs[i] = &vals[i]
		}
		if err := rs.Scan(ptrs...); err != nil {
			return nil, fmt.Errorf("reading Magnum's %s table: %w", table, err)
		}
		r := row{}
		for i, c := range cols {
			r[strings.ToLower(c)] = vals[i]
		}
		out = append(out, r)
	}
	if err := rs.Err(); err != nil {
		return nil, fmt.Errorf("reading Magnum's %s table: %w", table, err)
	}
	return out, nil
}
