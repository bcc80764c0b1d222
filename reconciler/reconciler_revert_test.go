package reconciler

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

func gitCLI(t *testing.T, dir string, args ...string) {
	t.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GIT_AUTHOR_NAME=op", "GIT_AUTHOR_EMAIL=op@x", "GIT_COMMITTER_NAME=op", "GIT_COMMITTER_EMAIL=op@x")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("git %v: %v\n%s", args, err, out)
	}
}

// `git revert` of a resize, pushed with the git CLI, reconciles the cluster
// back to its earlier size.
func TestRevertOfResizeWithGitCLI(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("revert", 2)
	f.write(st)
	f.rec.Sync(ctx)
	st.NodeGroups[1].NodeCount = 5
	f.write(st)
	f.rec.Sync(ctx)

	replicas := func() int32 { return workerReplicas(t, st.Cluster.StackID) }
	if got := replicas(); got != 5 {
		t.Fatalf("after the resize: %d replicas, want 5", got)
	}

	work := filepath.Join(t.TempDir(), "work")
	gitCLI(t, ".", "clone", "-q", f.store.Dir(), work)
	gitCLI(t, work, "revert", "--no-edit", "HEAD")
	gitCLI(t, work, "push", "-q", "origin", "HEAD:main")

	f.eventually("the revert to reach the management cluster", func() bool { return replicas() == 2 })
}
