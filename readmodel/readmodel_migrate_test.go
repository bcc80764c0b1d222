package readmodel_test

import (
	"context"
	"path/filepath"
	"testing"

	"github.com/jmoiron/sqlx"
	_ "modernc.org/sqlite"

	"github.com/openkeel/keel/readmodel"
)

// A read model written by an earlier keel (without the columns added since)
// opens: the missing columns are added and the rows are kept.
func TestOpenAddsColumnsToAnEarlierReadModel(t *testing.T) {
	ctx := context.Background()
	file := filepath.Join(t.TempDir(), "keel.db")
	old, err := sqlx.Open("sqlite", "file:"+file)
	if err != nil {
		t.Fatal(err)
	}
	for _, s := range []string{
		`CREATE TABLE observed (uuid TEXT PRIMARY KEY, applied_revision TEXT NOT NULL DEFAULT '', apply_error TEXT NOT NULL DEFAULT '',
			apply_stalled INTEGER NOT NULL DEFAULT 0, completed_revision TEXT NOT NULL DEFAULT '', deleting_reason TEXT NOT NULL DEFAULT '',
			capi TEXT NOT NULL DEFAULT '')`,
		`INSERT INTO observed (uuid, applied_revision) VALUES ('u1', 'r1')`,
	} {
		if _, err := old.Exec(s); err != nil {
			t.Fatal(err)
		}
	}
	old.Close()

	for range 2 { // the second open finds the column there
		db, err := readmodel.Open(ctx, file)
		if err != nil {
			t.Fatalf("opening an earlier read model: %v", err)
		}
		var got struct {
			Rev  string `db:"applied_revision"`
			Gone int    `db:"gone"`
		}
		if err := db.X().GetContext(ctx, &got, `SELECT applied_revision, gone FROM observed WHERE uuid = 'u1'`); err != nil || got.Rev != "r1" || got.Gone != 0 {
			t.Fatalf("row after migration: %+v, %v", got, err)
		}
		db.Close()
	}
}
