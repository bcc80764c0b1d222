package magnumimport_test

import (
	"strings"
	"testing"

	"github.com/openkeel/keel/magnumimport"
)

// ParseURL reads what magnum.conf's [database] connection holds, and never
// shows the password.
func TestParseURL(t *testing.T) {
	for _, tc := range []struct {
		url, dialect, dsn, display, err string
	}{
		{url: "mysql+pymysql://magnum:s3cr%40t@db.example.com/magnum?charset=utf8", dialect: "mysql",
			dsn: "magnum:s3cr@t@tcp(db.example.com:3306)/magnum?charset=utf8mb4", display: "mysql+pymysql://magnum@db.example.com/magnum"},
		{url: "mysql://magnum:pw@10.0.0.5:3307/magnum", dialect: "mysql",
			dsn: "magnum:pw@tcp(10.0.0.5:3307)/magnum?charset=utf8mb4", display: "mysql://magnum@10.0.0.5:3307/magnum"},
		{url: "mysql+pymysql://root@localhost/magnum?unix_socket=/run/mysqld/mysqld.sock", dialect: "mysql",
			dsn: "root@unix(/run/mysqld/mysqld.sock)/magnum?charset=utf8mb4", display: "mysql+pymysql://root@localhost/magnum"},
		{url: "postgresql://magnum:pw@pg.example.com/magnum", dialect: "postgresql",
			dsn: "postgres://magnum:pw@pg.example.com/magnum", display: "postgresql://magnum@pg.example.com/magnum"},
		{url: "postgresql+psycopg2://magnum:pw@pg:5433/magnum?sslmode=require&client_encoding=utf8", dialect: "postgresql",
			dsn: "postgres://magnum:pw@pg:5433/magnum?sslmode=require", display: "postgresql+psycopg2://magnum@pg:5433/magnum"},
		{url: "sqlite:////var/lib/magnum/magnum.db", dialect: "sqlite",
			dsn: "file:/var/lib/magnum/magnum.db?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)", display: "sqlite:////var/lib/magnum/magnum.db"},
		{url: "sqlite:///magnum.db", dialect: "sqlite",
			dsn: "file:magnum.db?mode=ro&_pragma=query_only(1)&_pragma=busy_timeout(5000)", display: "sqlite:///magnum.db"},
		{url: "sqlite://", err: "names no database file"},
		{url: "oracle://u:p@h/db", err: `database "oracle" is not one keel reads`},
		{url: "db.example.com/magnum", err: "is not a database URL"},
		{url: "mysql+pymysql://magnum:pw@/magnum", err: "has no host"},
		{url: "mysql+pymysql://magnum:pw@db", err: "has no database name"},
		{url: "mysql+pymysql://magnum:topsecret@db", err: "has no database name"},
	} {
		t.Run(tc.url, func(t *testing.T) {
			got, err := magnumimport.ParseURL(tc.url)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("err = %v, want %q", err, tc.err)
				}
				if strings.Contains(err.Error(), "topsecret") {
					t.Errorf("the error shows the password: %v", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got.Dialect != tc.dialect || got.DSN != tc.dsn || got.Display != tc.display {
				t.Errorf("got %+v\nwant dialect %s dsn %s display %s", got, tc.dialect, tc.dsn, tc.display)
			}
		})
	}
}
