package main

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

func runVet(t *testing.T, args ...string) (string, error) {
	t.Helper()
	cmd := vetCmd()
	var out bytes.Buffer
	cmd.SetOut(&out)
	cmd.SetErr(&bytes.Buffer{})
	cmd.SetArgs(args)
	err := cmd.Execute()
	return out.String(), err
}

// The example repository is valid; the same repository with an immutable
// label changed since the base revision is refused with a line naming the
// file and the label.
func TestVetImmutableChangeSinceBase(t *testing.T) {
	if out, err := runVet(t, "../../examples/cluster-repo"); err != nil {
		t.Fatalf("example repository: %v\n%s", err, out)
	}
	dir := t.TempDir()
	if err := exec.Command("cp", "-r", "../../examples/cluster-repo/.", dir).Run(); err != nil {
		t.Fatal(err)
	}
	git := func(args ...string) {
		c := exec.Command("git", append([]string{"-C", dir, "-c", "user.name=t", "-c", "user.email=t@x"}, args...)...)
		if out, err := c.CombinedOutput(); err != nil {
			t.Fatalf("git %v: %v\n%s", args, err, out)
		}
	}
	git("init", "-q", "-b", "main")
	git("add", "-A")
	git("commit", "-qm", "base")
	files, _ := filepath.Glob(filepath.Join(dir, "projects/*/clusters/*/cluster.yaml"))
	if len(files) == 0 {
		t.Fatal("no cluster in the example repository")
	}
	data, _ := os.ReadFile(files[0])
	changed := strings.Replace(string(data), "labels:\n", "labels:\n  dns_cluster_domain: example.internal\n", 1)
	if changed == string(data) {
		t.Fatal("could not edit the cluster's labels")
	}
	if err := os.WriteFile(files[0], []byte(changed), 0o644); err != nil {
		t.Fatal(err)
	}
	out, err := runVet(t, "--base", "HEAD", dir)
	if err != errVetFailed || !strings.Contains(out, "dns_cluster_domain") || !strings.Contains(out, "cluster.yaml") {
		t.Fatalf("vet --base HEAD: err %v, output:\n%s", err, out)
	}
}
