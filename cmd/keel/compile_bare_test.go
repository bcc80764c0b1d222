package main

import (
	"os/exec"
	"path"
	"strings"
	"testing"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// keel compile on a bare repository renders stale clusters as one commit on
// its HEAD, keeps Secret files, and commits nothing when all is current.
func TestCompileBareRepository(t *testing.T) {
	dir := t.TempDir() + "/repo.git"
	st, err := gitstore.Open(dir)
	if err != nil {
		t.Fatal(err)
	}
	files := repoFiles(t)
	cdir := "projects/p1/clusters/demo-kube-ab12c"
	secret := path.Join(intent.RenderedPath(cdir), compiler.SecretFilePrefix+"ca.yaml")
	stale := path.Join(intent.RenderedPath(cdir), "left-over.yaml")
	files[secret] = []byte("kept: as is\n")
	files[stale] = []byte("gone: true\n")
	commitFiles(t, st, files)
	before, _ := st.Head()

	if out, err := run(t, "compile", "--repo", dir, "--check"); err == nil {
		t.Fatalf("--check passed without rendered output:\n%s", out)
	}
	out, err := run(t, "compile", "--repo", dir)
	if err != nil || !strings.Contains(out, "rendered: "+cdir) {
		t.Fatalf("compile: %v\n%s", err, out)
	}
	if out, err := run(t, "compile", "--repo", dir, "--check"); err != nil {
		t.Fatalf("--check after compile: %v\n%s", err, out)
	}

	// The git CLI sees exactly one new commit, on top of the previous HEAD.
	log, err := exec.Command("git", "-C", dir, "log", "--format=%P %s", "-2", gitstore.Branch).CombinedOutput()
	if err != nil {
		t.Fatalf("git log: %v\n%s", err, log)
	}
	lines := strings.Split(strings.TrimSpace(string(log)), "\n")
	if len(lines) != 2 || !strings.HasPrefix(lines[0], before.String()+" compile: re-render 1 of 1 clusters") {
		t.Fatalf("git log:\n%s", log)
	}

	sn, err := st.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	if data, err := sn.ReadFile(secret); err != nil || string(data) != "kept: as is\n" {
		t.Errorf("Secret file after compile: %q, %v", data, err)
	}
	if _, err := sn.ReadFile(stale); err == nil {
		t.Errorf("%s is still there", stale)
	}
	k, err := sn.ReadFile(path.Join(intent.RenderedPath(cdir), compiler.KustomizationFile))
	if err != nil || !strings.Contains(string(k), compiler.SecretFilePrefix+"ca.yaml") || !strings.Contains(string(k), "cluster.yaml") {
		t.Errorf("kustomization lists %q (%v)", k, err)
	}

	head, _ := st.Head()
	if out, err := run(t, "compile", "--repo", dir); err != nil || !strings.Contains(out, "1 clusters, 0 re-rendered") {
		t.Fatalf("second compile: %v\n%s", err, out)
	}
	if again, _ := st.Head(); again != head {
		t.Errorf("a compile with nothing stale committed %s", again)
	}
}
