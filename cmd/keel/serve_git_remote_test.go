package main

import (
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/openkeel/keel/cmd/keel/server"
)

// --git-remote and --git-remote-interval reach server.Options, with the
// webhook secret taken from KEEL_GIT_WEBHOOK_SECRET (never a flag, so it
// is not in the process list); a non-positive interval is refused.
func TestServeGitRemoteFlags(t *testing.T) {
	t.Setenv("KEEL_GIT_WEBHOOK_SECRET", "hook-secret")
	parse := func(args ...string) (*server.Options, error) {
		o := &serveOptions{}
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		o.gitRemoteFlags(f)
		if err := f.Parse(args); err != nil {
			t.Fatal(err)
		}
		so := &server.Options{}
		return so, o.gitRemoteOptions(so)
	}
	so, err := parse("--git-remote", "https://git.example.org/platform/clusters.git", "--git-remote-interval", "45s")
	if err != nil {
		t.Fatal(err)
	}
	if so.GitRemote != "https://git.example.org/platform/clusters.git" || so.GitRemoteInterval != 45*time.Second || so.GitWebhookSecret != "hook-secret" {
		t.Fatalf("options = %+v", so)
	}
	if so, _ := parse(); so.GitRemote != "" || so.GitWebhookSecret != "" {
		t.Fatalf("without --git-remote: %+v", so)
	}
	if _, err := parse("--git-remote", "/srv/clusters.git", "--git-remote-interval", "0s"); err == nil || !strings.Contains(err.Error(), "--git-remote-interval") {
		t.Fatalf("interval 0: err = %v", err)
	}
}
