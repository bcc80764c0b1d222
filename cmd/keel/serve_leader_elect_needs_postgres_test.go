package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// Replicas see the statuses the leader's observer writes only through one
// shared PostgreSQL read model: --leader-elect with a SQLite file (given or
// the default) stops keel serve before it starts anything, naming the flag
// and what it needs.
func TestServeLeaderElectNeedsPostgres(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
	}{
		{"default SQLite", nil},
		{"SQLite file", []string{"--database", filepath.Join(dir, "keel.db")}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := serveCmd()
			// A --kubeconfig that does not exist: had the flags been
			// accepted, serve would fail on it, without starting anything.
			cmd.SetArgs(append([]string{"--data-dir", dir, "--kubeconfig", filepath.Join(dir, "missing.kubeconfig"), "--log-level", "error", "--leader-elect"}, c.args...))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.ExecuteContext(context.Background())
			if err == nil {
				t.Fatal("keel serve accepted it")
			}
			for _, w := range []string{"--leader-elect", "--database postgres://"} {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
