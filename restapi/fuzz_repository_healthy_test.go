package restapi

import (
	"os/exec"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
)

// layout is every path keel writes (docs/repository.md): a committed path
// outside it came from a request value that reached a path.
var layout = regexp.MustCompile(`^(?:README\.md|\.keel/sequences\.yaml|\.sops\.yaml|site\.cue` +
	`|clusterclasses/[A-Za-z0-9._-]+/[A-Za-z0-9._-]+` +
	`|projects/[A-Za-z0-9_-]{1,64}/(?:clustertemplates/[0-9a-fA-F-]{32,36}\.yaml` +
	`|clusters/[A-Za-z][A-Za-z0-9_.-]*-kube-[a-z0-9]{5}/(?:cluster\.yaml|facts\.yaml|nodegroups/[a-z0-9][a-z0-9.-]*\.yaml|secrets/[a-z.]+\.yaml|rendered/[A-Za-z0-9._-]+))` +
	`|quotas/[A-Za-z0-9_-]{1,64}\.yaml)$`)

// inLayout reports whether p is a path keel writes, by the documented
// layout and by gitstore's own rule.
func inLayout(p string) bool { return layout.MatchString(p) && gitstore.CheckPath(p) == nil }

// expectRepositoryHealthy fails unless `git fsck --strict` has nothing to
// say about the repository at dir (no error, no warning) and the git CLI
// clones and checks it out: what a platform team, a CI job and a Git
// server with receive.fsckObjects do with it.
func expectRepositoryHealthy(t testing.TB, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling", "--no-progress").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("git fsck --strict on %s: %v\n%s", dir, err, out)
	}
	work := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", dir, work).CombinedOutput(); err != nil {
		t.Fatalf("git clone of %s: %v\n%s", dir, err, out)
	}
}
