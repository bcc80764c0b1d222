package main

import (
	"context"
	"io"
	"path/filepath"
	"strings"
	"testing"
)

// The simulator that played Cluster API is gone: asking for it stops keel
// serve before it starts anything, with an error naming the flag and what
// to use instead.
func TestServeSimulatedClusterAPIRemoved(t *testing.T) {
	dir := t.TempDir()
	for _, c := range []struct {
		name string
		args []string
		want []string
	}{
		{"--cluster-api simulated", []string{"--cluster-api", "simulated"}, []string{"--cluster-api=simulated was removed", "--cluster-api=real"}},
		{"--cluster-api unknown", []string{"--cluster-api", "fake"}, []string{"--cluster-api", `"fake"`, "real"}},
		{"--simulate-infrastructure", []string{"--simulate-infrastructure"}, []string{"--simulate-infrastructure was removed", "clusterctl init"}},
		{"--simulate-infrastructure=false", []string{"--simulate-infrastructure=false"}, []string{"--simulate-infrastructure was removed"}},
	} {
		t.Run(c.name, func(t *testing.T) {
			cmd := serveCmd()
			// A --kubeconfig that does not exist: had the flag been
			// accepted, serve would fail on it, without starting anything.
			cmd.SetArgs(append([]string{"--data-dir", dir, "--kubeconfig", filepath.Join(dir, "missing.kubeconfig"), "--log-level", "error"}, c.args...))
			cmd.SetOut(io.Discard)
			cmd.SetErr(io.Discard)
			err := cmd.ExecuteContext(context.Background())
			if err == nil {
				t.Fatal("keel serve accepted it")
			}
			for _, w := range c.want {
				if !strings.Contains(err.Error(), w) {
					t.Errorf("error %q does not say %q", err, w)
				}
			}
		})
	}
}
