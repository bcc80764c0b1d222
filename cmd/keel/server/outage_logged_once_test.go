package server

import (
	"bytes"
	"context"
	"errors"
	"log/slog"
	"strings"
	"testing"
)

// A retrying loop logs an outage once, with its error, and its end once;
// the next outage is logged again, and failures while shutting down are
// not outages.
func TestOutageLoggedOnce(t *testing.T) {
	var buf bytes.Buffer
	o := outage{log: slog.New(slog.NewTextHandler(&buf, nil)), level: slog.LevelWarn, failing: "down", recovered: "up"}
	ctx := context.Background()
	boom := errors.New("boom")
	for _, err := range []error{nil, boom, boom, boom, nil, nil, boom, nil} {
		o.report(ctx, err)
	}
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	o.report(cancelled, boom)

	var got []string
	for _, l := range strings.Split(strings.TrimSpace(buf.String()), "\n") {
		msg := l[strings.Index(l, "msg=")+4:]
		got = append(got, msg)
	}
	want := []string{"down err=boom", "up", "down err=boom", "up"}
	if strings.Join(got, "|") != strings.Join(want, "|") {
		t.Fatalf("logged %q, want %q", got, want)
	}
	if !strings.Contains(buf.String(), "level=WARN msg=down") {
		t.Fatalf("outage not logged at its level:\n%s", buf.String())
	}
}
