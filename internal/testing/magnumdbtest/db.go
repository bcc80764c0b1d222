// Package magnumdbtest gives tests real Magnum databases: the schema made
// by Magnum's own code (magnum-db-manage on MariaDB; Magnum's models on
// SQLite and PostgreSQL, where its migrations do not run), filled with the
// rows Magnum's API and conductor write, and a cluster's CAs made by
// Magnum's own certificate code. keel import's tests (magnumimport) and
// the side-by-side test against the real Magnum API (cmd/keel/conformance)
// use it.
package magnumdbtest

import (
	"context"
	"crypto/rand"
	"database/sql"
	"encoding/hex"
	"fmt"
	"io"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"
	_ "modernc.org/sqlite"
)

// A Magnum database for one test: its schema made by Magnum itself, once
// per test binary (magnum-db-manage takes tens of seconds), then copied.
type DB struct {
	Name    string  // sqlite, mariadb, postgresql
	URL     string  // what magnum.conf would hold, for keel import
	SQL     *sql.DB // to fill it as Magnum's API and conductor do
	Dialect string
}

// exec runs a statement with ? placeholders (rewritten for PostgreSQL).
func (m DB) Exec(t testing.TB, q string, args ...any) {
	t.Helper()
	if m.Dialect == "postgresql" {
		n := 0
		var b strings.Builder
		for _, r := range q {
			if r == '?' {
				n++
				fmt.Fprintf(&b, "$%d", n)
				continue
			}
			b.WriteRune(r)
		}
		q = b.String()
	}
	if _, err := m.SQL.Exec(q, args...); err != nil {
		t.Fatalf("%s: %s: %v", m.Name, q, err)
	}
}

var (
	cleanups   []func()
	cleanupsMu sync.Mutex
)

func atExit(f func()) {
	cleanupsMu.Lock()
	defer cleanupsMu.Unlock()
	cleanups = append(cleanups, f)
}

// Cleanup stops the servers and removes the schemas made for the test
// binary: call it from TestMain after m.Run.
func Cleanup() {
	cleanupsMu.Lock()
	defer cleanupsMu.Unlock()
	for i := len(cleanups) - 1; i >= 0; i-- {
		cleanups[i]()
	}
	cleanups = nil
}

// Need skips a test when a tool is missing, or fails it when env=1 (make
// test sets it, so CI never skips).
func Need(t testing.TB, env, what string, ok bool) bool {
	t.Helper()
	if ok {
		return true
	}
	if os.Getenv(env) == "1" {
		t.Fatalf("%s=1 but %s is missing (hack/test-deps.sh installs it)", env, what)
	}
	t.Logf("%s missing: skipped here (%s=1 in make test makes it a failure)", what, env)
	return false
}

// Have reports whether cmd is on PATH.
func Have(cmd string) bool { _, err := exec.LookPath(cmd); return err == nil }

// All are the Magnum databases a test runs against, by dialect: SQLite
// always, MariaDB and PostgreSQL when their servers are there.
func All(t *testing.T) []DB {
	t.Helper()
	var out []DB
	if Need(t, "KEEL_REQUIRE_MAGNUM", "magnum-db-manage (python3-magnum)", Have("magnum-db-manage")) {
		out = append(out, SQLite(t))
		if Need(t, "KEEL_REQUIRE_MARIADB", "mariadbd (mariadb-server)", Have("mariadbd") && Have("mariadb-install-db")) {
			out = append(out, MariaDB(t))
		}
		if base := os.Getenv("KEEL_TEST_POSTGRES"); base != "" {
			out = append(out, Postgres(t, base))
		} else if os.Getenv("KEEL_REQUIRE_POSTGRES") == "1" {
			t.Fatal("KEEL_REQUIRE_POSTGRES=1 but KEEL_TEST_POSTGRES is unset")
		}
	}
	if len(out) == 0 {
		t.Skip("no Magnum database to test against")
	}
	return out
}

// RandName is prefix and 10 random hex digits (a database name).
func RandName(prefix string) string {
	b := make([]byte, 5)
	_, _ = rand.Read(b)
	return prefix + hex.EncodeToString(b)
}

func run(name string, args ...string) error {
	cmd := exec.Command(name, args...)
	out, err := cmd.CombinedOutput()
	if err != nil {
		return fmt.Errorf("%s %s: %v\n%s", name, strings.Join(args, " "), err, out)
	}
	return nil
}

// dbManage makes Magnum's schema at url with Magnum's own migrations.
func dbManage(dir, url string) error {
	conf := filepath.Join(dir, "magnum-"+RandName("")+".conf")
	if err := os.WriteFile(conf, []byte("[DEFAULT]\n[database]\nconnection = "+url+"\n"), 0o600); err != nil {
		return err
	}
	return run("magnum-db-manage", "--config-file", conf, "upgrade")
}

// magnumPython is the interpreter magnum-db-manage runs with (its #!
// line): the one Debian's python3-magnum is installed for, whatever
// python3 comes first in PATH.
func Python() string {
	p, err := exec.LookPath("magnum-db-manage")
	if err != nil {
		return "python3"
	}
	data, err := os.ReadFile(p)
	if err != nil {
		return "python3"
	}
	line, _, _ := strings.Cut(string(data), "\n")
	if f := strings.Fields(strings.TrimPrefix(line, "#!")); len(f) > 0 {
		return f[0]
	}
	return "python3"
}

// createFromModels makes Magnum's schema at url from Magnum's models
// (magnum.db.sqlalchemy.models, as Magnum's own tests do) and stamps it
// with its migrations' head: for the databases Magnum's migrations do not
// run on (SQLite; PostgreSQL, where nodegroups_v2's MySQL-only UPDATE ...
// JOIN fails).
func createFromModels(url string) error {
	return run(Python(), "-c", `
import os, sys
import sqlalchemy as sa
from alembic.script import ScriptDirectory
import magnum.db.sqlalchemy as pkg
from magnum.db.sqlalchemy import models
head = ScriptDirectory(os.path.join(os.path.dirname(pkg.__file__), "alembic")).get_current_head()
e = sa.create_engine(sys.argv[1])
models.Base.metadata.create_all(e)
with e.begin() as c:
    c.execute(sa.text("CREATE TABLE alembic_version (version_num VARCHAR(32) NOT NULL PRIMARY KEY)"))
    c.execute(sa.text("INSERT INTO alembic_version VALUES (:v)"), {"v": head})
`, url)
}

// once caches a schema per test binary.
type once struct {
	sync.Once
	val string
	err error
}

var sqliteSchema once

// sqliteDB: Magnum's migrations do not run on SQLite (they ALTER
// constraints); Magnum's own tests make its SQLite schema from its models,
// and so does this, stamped with the migrations' head.
func SQLite(t testing.TB) DB {
	sqliteSchema.Do(func() {
		dir, err := os.MkdirTemp("", "keel-magnum-sqlite")
		if err != nil {
			sqliteSchema.err = err
			return
		}
		atExit(func() { os.RemoveAll(dir) })
		file := filepath.Join(dir, "magnum.db")
		sqliteSchema.val, sqliteSchema.err = file, createFromModels("sqlite:///"+file)
	})
	if sqliteSchema.err != nil {
		t.Fatal(sqliteSchema.err)
	}
	file := filepath.Join(t.TempDir(), "magnum.db")
	copyFile(t, sqliteSchema.val, file)
	db, err := sql.Open("sqlite", file)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return DB{Name: "sqlite", URL: "sqlite:///" + file, SQL: db, Dialect: "sqlite"}
}

func copyFile(t testing.TB, from, to string) {
	in, err := os.Open(from)
	if err != nil {
		t.Fatal(err)
	}
	defer in.Close()
	out, err := os.Create(to)
	if err != nil {
		t.Fatal(err)
	}
	defer out.Close()
	if _, err := io.Copy(out, in); err != nil {
		t.Fatal(err)
	}
}

var mariaServer once // the socket

// mariaDB starts one throwaway MariaDB per test binary, migrates a schema
// database with magnum-db-manage, and gives each test a copy.
func MariaDB(t *testing.T) DB {
	mariaServer.Do(func() { mariaServer.val, mariaServer.err = startMariaDB() })
	if mariaServer.err != nil {
		t.Fatal(mariaServer.err)
	}
	sock := mariaServer.val
	admin, err := sql.Open("mysql", "root@unix("+sock+")/magnum_schema?multiStatements=true")
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	name := RandName("magnum_t_")
	if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
		t.Fatal(err)
	}
	rows, err := admin.Query("SHOW TABLES")
	if err != nil {
		t.Fatal(err)
	}
	var tables []string
	for rows.Next() {
		var tb string
		_ = rows.Scan(&tb)
		tables = append(tables, tb)
	}
	rows.Close()
	for _, tb := range tables {
		var n, ddl string
		if err := admin.QueryRow("SHOW CREATE TABLE "+tb).Scan(&n, &ddl); err != nil {
			t.Fatal(err)
		}
		if _, err := admin.Exec("USE " + name + "; " + ddl + "; USE magnum_schema"); err != nil {
			t.Fatal(err)
		}
	}
	if _, err := admin.Exec("INSERT INTO " + name + ".alembic_version SELECT * FROM magnum_schema.alembic_version"); err != nil {
		t.Fatal(err)
	}
	db, err := sql.Open("mysql", "root@unix("+sock+")/"+name)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	return DB{Name: "mariadb", Dialect: "mysql", SQL: db,
		URL: "mysql+pymysql://root@localhost/" + name + "?unix_socket=" + url.QueryEscape(sock) + "&charset=utf8"}
}

func startMariaDB() (string, error) {
	dir, err := os.MkdirTemp("", "keel-mariadb")
	if err != nil {
		return "", err
	}
	data, sock := filepath.Join(dir, "data"), filepath.Join(dir, "sock")
	args := []string{"--no-defaults", "--datadir=" + data, "--auth-root-authentication-method=normal", "--skip-test-db"}
	srv := []string{"--no-defaults", "--datadir=" + data, "--socket=" + sock, "--skip-networking", "--pid-file=" + filepath.Join(dir, "pid"), "--log-error=" + filepath.Join(dir, "error.log")}
	if os.Getuid() == 0 {
		args, srv = append(args, "--user=root"), append(srv, "--user=root")
	}
	if err := run("mariadb-install-db", args...); err != nil {
		return "", err
	}
	cmd := exec.Command("mariadbd", srv...)
	if err := cmd.Start(); err != nil {
		return "", err
	}
	atExit(func() {
		_ = cmd.Process.Kill()
		_, _ = cmd.Process.Wait()
		os.RemoveAll(dir)
	})
	admin, err := sql.Open("mysql", "root@unix("+sock+")/")
	if err != nil {
		return "", err
	}
	defer admin.Close()
	deadline := time.Now().Add(60 * time.Second)
	for admin.Ping() != nil {
		if time.Now().After(deadline) {
			log, _ := os.ReadFile(filepath.Join(dir, "error.log"))
			return "", fmt.Errorf("mariadbd did not answer on %s within 60s:\n%s", sock, log)
		}
		time.Sleep(200 * time.Millisecond)
	}
	if _, err := admin.Exec("CREATE DATABASE magnum_schema CHARACTER SET utf8"); err != nil {
		return "", err
	}
	return sock, dbManage(dir, "mysql+pymysql://root@localhost/magnum_schema?unix_socket="+url.QueryEscape(sock)+"&charset=utf8")
}

var pgSchema once // the schema database's name

// postgresDB makes one schema database per test binary on the server
// KEEL_TEST_POSTGRES names, and gives each test a copy (CREATE DATABASE
// ... TEMPLATE).
func Postgres(t *testing.T, base string) DB {
	u, err := url.Parse(base)
	if err != nil {
		t.Fatal(err)
	}
	admin, err := sql.Open("pgx", base)
	if err != nil {
		t.Fatal(err)
	}
	defer admin.Close()
	pgSchema.Do(func() {
		name := RandName("magnum_schema_")
		if _, err := admin.Exec("CREATE DATABASE " + name); err != nil {
			pgSchema.err = err
			return
		}
		atExit(func() {
			if a, err := sql.Open("pgx", base); err == nil {
				_, _ = a.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
				a.Close()
			}
		})
		m := *u
		m.Scheme, m.Path, m.RawQuery = "postgresql+psycopg2", "/"+name, ""
		pgSchema.val, pgSchema.err = name, createFromModels(m.String())
	})
	if pgSchema.err != nil {
		t.Fatal(pgSchema.err)
	}
	name := RandName("magnum_t_")
	if _, err := admin.Exec("CREATE DATABASE " + name + " TEMPLATE " + pgSchema.val); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if a, err := sql.Open("pgx", base); err == nil {
			_, _ = a.ExecContext(context.Background(), "DROP DATABASE IF EXISTS "+name+" WITH (FORCE)")
			a.Close()
		}
	})
	m := *u
	m.Path = "/" + name
	db, err := sql.Open("pgx", m.String())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	m.Scheme = "postgresql"
	return DB{Name: "postgresql", Dialect: "postgresql", SQL: db, URL: m.String()}
}
