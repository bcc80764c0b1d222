package magnumimport

import (
	"errors"
	"fmt"
	"net"
	"net/url"
	"strings"

	"github.com/go-sql-driver/mysql"
)

// Source is a Magnum database as keel opens it.
type Source struct {
	// Dialect is mysql, postgresql or sqlite.
	Dialect string
	// Driver and DSN are what database/sql opens.
	Driver, DSN string
	// Display is the URL without its password: for messages and the
	// commits' Keel-Import-Source trailer.
	Display string
}

// Dialects keel reads, by the SQLAlchemy dialect names magnum.conf uses
// (the part before "+driver").
var dialectDrivers = map[string]string{
	"mysql": "mysql", "mariadb": "mysql", "postgresql": "pgx", "postgres": "pgx", "sqlite": "sqlite",
}

// errURL starts every refusal of a database URL.
var errURL = errors.New("--magnum-db")

const urlHelp = "expected what magnum.conf's [database] connection holds: mysql+pymysql://USER:PASSWORD@HOST[:PORT]/DATABASE, postgresql://USER:PASSWORD@HOST[:PORT]/DATABASE or sqlite:////ABSOLUTE/PATH"

// ParseURL reads an SQLAlchemy database URL as magnum.conf's [database]
// connection holds it (oslo.db passes it to SQLAlchemy): dialect[+driver]
// then the dialect's own form. The password may be percent-encoded, as
// SQLAlchemy requires of special characters.
func ParseURL(raw string) (Source, error) {
	scheme, rest, ok := strings.Cut(strings.TrimSpace(raw), "://")
	if !ok || scheme == "" {
		return Source{}, fmt.Errorf("%w: %q is not a database URL; %s", errURL, redactLoose(raw), urlHelp)
	}
	dialect, _, _ := strings.Cut(strings.ToLower(scheme), "+")
	driver, known := dialectDrivers[dialect]
	if !known {
		return Source{}, fmt.Errorf("%w: database %q is not one keel reads (MySQL/MariaDB, PostgreSQL, SQLite); %s", errURL, dialect, urlHelp)
	}
	if driver == "sqlite" {
		return parseSQLite(scheme, rest)
	}
	u, err := url.Parse("x://" + rest)
	if err != nil || u.Host == "" && u.Query().Get("unix_socket") == "" && u.Query().Get("host") == "" {
		return Source{}, fmt.Errorf("%w: %s://%s has no host; %s", errURL, scheme, redactLoose(rest), urlHelp)
	}
	db := strings.TrimPrefix(u.Path, "/")
	if db == "" || strings.Contains(db, "/") {
		return Source{}, fmt.Errorf("%w: %s has no database name (…/DATABASE); %s", errURL, display(scheme, u), urlHelp)
	}
	src := Source{Dialect: dialect, Driver: driver, Display: display(scheme, u)}
	if driver == "mysql" {
		src.Dialect, src.DSN = "mysql", mysqlDSN(u, db)
	} else {
		src.Dialect, src.DSN = "postgresql", postgresDSN(u, db)
	}
	return src, nil
}

// display is the URL without its password (user and host stay: they tell
// which database was imported).
func display(scheme string, u *url.URL) string {
	c := *u
	if c.User != nil {
		c.User = url.User(c.User.Username())
	}
	c.RawQuery = ""
	return scheme + strings.TrimPrefix(c.String(), "x")
}

// redactLoose drops anything between "://" and an "@" of a string that
// did not parse (it may still hold a password).
func redactLoose(s string) string {
	if i := strings.LastIndex(s, "@"); i >= 0 {
		if j := strings.Index(s, "://"); j >= 0 && j < i {
			return s[:j+3] + "…" + s[i:]
		}
		return "…" + s[i:]
	}
	return s
}

func mysqlDSN(u *url.URL, db string) string {
	c := mysql.NewConfig()
	c.User = u.User.Username()
	c.Passwd, _ = u.User.Password()
	c.DBName = db
	q := u.Query()
	if sock := q.Get("unix_socket"); sock != "" {
		c.Net, c.Addr = "unix", sock
	} else {
		c.Net, c.Addr = "tcp", hostPort(u, "3306")
	}
	// charset=utf8 (oslo.db's usual) is MySQL's 3-byte utf8: reading, the
	// server converts to the connection's utf8mb4, a superset.
	c.Params = map[string]string{"charset": "utf8mb4"}
	return c.FormatDSN()
}

func postgresDSN(u *url.URL, db string) string {
	out := url.URL{Scheme: "postgres", User: u.User, Host: u.Host, Path: "/" + db}
	q := url.Values{}
	// libpq's connection parameters psycopg2 passes through; anything
	// else (SQLAlchemy's own options) is not the server's business.
	for _, k := range []string{"sslmode", "sslcert", "sslkey", "sslrootcert", "connect_timeout", "host", "port", "application_name"} {
		if v := u.Query().Get(k); v != "" {
			q.Set(k, v)
		}
	}
	out.RawQuery = q.Encode()
	return out.String()
}

func hostPort(u *url.URL, port string) string {
	if u.Port() != "" {
		port = u.Port()
	}
	return net.JoinHostPort(u.Hostname(), port)
}

// parseSQLite reads sqlite:///relative/path and sqlite:////absolute/path
// (SQLAlchemy's form: the path follows the third slash). "sqlite://"
// alone is an in-memory database: nothing to import.
func parseSQLite(scheme, rest string) (Source, error) {
	p, _, _ := strings.Cut(rest, "?")
	if !strings.HasPrefix(p, "/") || len(p) < 2 {
		return Source{}, fmt.Errorf("%w: %s://%s names no database file (an in-memory database holds nothing to import); %s", errURL, scheme, rest, urlHelp)
	}
	file := p[1:]
	if strings.ContainsAny(file, "\x00") {
		return Source{}, fmt.Errorf("%w: the SQLite path holds a NUL character", errURL)
	}
	// Opened read-only: mode=ro refuses any write, query_only too.
	dsn := "file:" + (&url.URL{Path: file}).EscapedPath() + "?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)"
	return Source{Dialect: "sqlite", Driver: "sqlite", DSN: dsn, Display: scheme + ":///" + file}, nil
}
