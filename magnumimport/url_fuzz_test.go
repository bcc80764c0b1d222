package magnumimport_test

import (
	"net/url"
	"strings"
	"testing"

	"github.com/openkeel/keel/magnumimport"
)

// FuzzParseURL: ParseURL never panics; what it accepts has a known
// dialect, and its Display never holds the password.
func FuzzParseURL(f *testing.F) {
	for _, s := range []string{
		"mysql+pymysql://magnum:pw@db/magnum?charset=utf8", "postgresql://u:p@h:5432/d?sslmode=disable",
		"postgresql+psycopg2://u:p%2F@h/d", "sqlite:////abs/x.db", "sqlite:///rel.db", "sqlite://",
		"mysql://u:p@[::1]:3306/d", "mariadb+pymysql://u@h/d?unix_socket=/s", "x://", "://", "mysql://@/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, raw string) {
		src, err := magnumimport.ParseURL(raw)
		if err != nil {
			return
		}
		switch src.Dialect {
		case "mysql", "postgresql", "sqlite":
		default:
			t.Fatalf("dialect %q from %q", src.Dialect, raw)
		}
		if src.DSN == "" || src.Driver == "" {
			t.Fatalf("empty DSN or driver from %q: %+v", raw, src)
		}
		_, rest, _ := strings.Cut(raw, "://")
		u, err := url.Parse("x://" + rest)
		if err != nil || u.User == nil {
			return
		}
		if pw, ok := u.User.Password(); ok && len(pw) >= 4 && strings.Contains(src.Display, pw) {
			t.Fatalf("Display %q shows the password %q", src.Display, pw)
		}
	})
}
