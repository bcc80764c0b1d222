// Package rmtest gives tests fresh read-model databases: a SQLite file, and a
// PostgreSQL database of its own on the server named by KEEL_TEST_POSTGRES
// (make test starts Debian's PostgreSQL and sets it).
package rmtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"net/url"
	"os"
	"path/filepath"
	"testing"

	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver
)

// DSNs returns the read models to run a test against, by name. PostgreSQL is
// left out when KEEL_TEST_POSTGRES is unset, unless KEEL_REQUIRE_POSTGRES=1
// (as in CI), which makes that a failure.
func DSNs(t *testing.T) map[string]string {
	t.Helper()
	out := map[string]string{"sqlite": filepath.Join(t.TempDir(), "keel.db")}
	base := os.Getenv("KEEL_TEST_POSTGRES")
	if base == "" {
		if os.Getenv("KEEL_REQUIRE_POSTGRES") == "1" {
			t.Fatal("KEEL_REQUIRE_POSTGRES=1 but KEEL_TEST_POSTGRES is unset")
		}
		t.Log("KEEL_TEST_POSTGRES unset: PostgreSQL not tested here (make test sets it)")
		return out
	}
	out["postgres"] = freshDatabase(t, base)
	return out
}

func freshDatabase(t *testing.T, base string) string {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatalf("KEEL_TEST_POSTGRES: %v", err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	b := make([]byte, 6)
	_, _ = rand.Read(b)
	name := "keel_t_" + hex.EncodeToString(b)
	if _, err := admin.ExecContext(context.Background(), "CREATE DATABASE "+name); err != nil {
		t.Fatalf("creating database %s on %s: %v", name, u.Host, err)
	}
	t.Cleanup(func() {
		a, err := sql.Open("pgx", base)
		if err != nil {
			return
		}
		defer a.Close()
		_, _ = a.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
	})
	u.Path = "/" + name
	return u.String()
}
