package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// buildImageBinary builds keel as the Dockerfile's builder stage does
// (CGO_ENABLED=0, -ldflags "-s -w") into dir. The Dockerfile's -trimpath
// is left out: it only rewrites file names, not what is linked, and it
// would recompile every dependency outside the build cache.
func buildImageBinary(t *testing.T, dir string) string {
	t.Helper()
	bin := filepath.Join(dir, "keel")
	cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", bin, ".")
	cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("CGO_ENABLED=0 go build: %v\n%s", err, out)
	}
	return bin
}

// requireRoot skips a test that must switch users when not root, except in
// CI (CI=true), where a silent skip would hide that it never ran.
func requireRoot(t *testing.T) {
	t.Helper()
	if os.Geteuid() == 0 {
		return
	}
	if os.Getenv("CI") == "true" {
		t.Fatal("this test runs keel as another user and needs root; CI=true, so it must not be skipped")
	}
	t.Skip("not root: cannot run keel as uid 65532 (run as root, or set CI=true to make this a failure)")
}
