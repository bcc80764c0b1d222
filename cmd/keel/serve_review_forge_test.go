package main

import (
	"strings"
	"testing"
	"time"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/forge/gitea"
	"github.com/openkeel/keel/forge/github"
	"github.com/openkeel/keel/forge/gitlab"
)

// TestReviewForgeFlag: --review-forge picks the adapter of the named forge
// for the --git-remote URL, with the token from KEEL_FORGE_TOKEN; an unknown
// name, a missing token or a remote the forge cannot read is an error that
// says so.
func TestReviewForgeFlag(t *testing.T) {
	for _, tc := range []struct {
		forge, remote, token string
		want                 string // the adapter's type, or the error's words
		bad                  bool
	}{
		{forge: "gitea", remote: "https://git.example.org/platform/clusters.git", token: "t", want: "*gitea.Forge"},
		{forge: "github", remote: "https://github.com/platform/clusters.git", token: "t", want: "*github.Forge"},
		{forge: "gitlab", remote: "https://gitlab.example.org/platform/infra/clusters.git", token: "t", want: "*gitlab.Forge"},
		{forge: "bitbucket", remote: "https://git.example.org/platform/clusters.git", token: "t", bad: true,
			want: `--review-forge must be one of gitea, github, gitlab, not "bitbucket"`},
		{forge: "github", remote: "https://github.com/platform/clusters.git", bad: true, want: "KEEL_FORGE_TOKEN"},
		{forge: "github", remote: "https://github.com/clusters.git", token: "t", bad: true, want: "--review-forge github:"},
	} {
		t.Run(tc.forge+" "+tc.remote, func(t *testing.T) {
			t.Setenv("KEEL_FORGE_TOKEN", tc.token)
			o := serveOptions{gitRemote: tc.remote, gitRemoteInterval: time.Minute, reviewForge: tc.forge}
			var so server.Options
			err := o.gitRemoteOptions(&so)
			if tc.bad {
				if err == nil || !strings.Contains(err.Error(), tc.want) || so.Forge != nil {
					t.Errorf("error %v, forge %T; want an error saying %q and no forge", err, so.Forge, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			var got string
			switch so.Forge.(type) {
			case *gitea.Forge:
				got = "*gitea.Forge"
			case *github.Forge:
				got = "*github.Forge"
			case *gitlab.Forge:
				got = "*gitlab.Forge"
			}
			if got != tc.want {
				t.Errorf("forge %T, want %s", so.Forge, tc.want)
			}
		})
	}
}
