package gitstore

import (
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// expectFsckClean fails unless `git fsck --strict` finds nothing at all to
// say about the repository at dir: no error and no warning.
func expectFsckClean(t *testing.T, dir string) {
	t.Helper()
	out, err := exec.Command("git", "-C", dir, "fsck", "--strict", "--no-dangling", "--no-progress").CombinedOutput()
	if err != nil || strings.TrimSpace(string(out)) != "" {
		t.Fatalf("git fsck --strict: %v\n%s", err, out)
	}
}

// expectClones fails unless the git CLI clones (and checks out) dir.
func expectClones(t *testing.T, dir string) string {
	t.Helper()
	work := filepath.Join(t.TempDir(), "clone")
	if out, err := exec.Command("git", "clone", "-q", dir, work).CombinedOutput(); err != nil {
		t.Fatalf("git clone: %v\n%s", err, out)
	}
	return work
}
