package main

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
)

// The keel binary the package's tests run (HA replicas, the openstack CLI
// scenario, the non-root and static-binary checks), built once: each `go
// build` of keel links a binary of a hundred megabytes, a minute of CPU on
// this machine.
var (
	keelBinOnce sync.Once
	keelBinDir  string
	keelBinPath string
	keelBinErr  error
)

// keelBinary builds keel once for the package as the Dockerfile's builder
// stage does (CGO_ENABLED=0, -ldflags "-s -w") and returns its path. The
// Dockerfile's -trimpath is left out: it only rewrites file names, not
// what is linked, and it would recompile every dependency outside the
// build cache.
func keelBinary(tb testing.TB) string {
	tb.Helper()
	keelBinOnce.Do(func() {
		if keelBinDir, keelBinErr = os.MkdirTemp("", "keel-bin-"); keelBinErr != nil {
			return
		}
		keelBinPath = filepath.Join(keelBinDir, "keel")
		cmd := exec.Command("go", "build", "-ldflags=-s -w", "-o", keelBinPath, ".")
		cmd.Env = append(os.Environ(), "CGO_ENABLED=0")
		if out, err := cmd.CombinedOutput(); err != nil {
			keelBinErr = fmt.Errorf("CGO_ENABLED=0 go build: %v\n%s", err, out)
		}
	})
	if keelBinErr != nil {
		tb.Fatal(keelBinErr)
	}
	return keelBinPath
}

// buildImageBinary puts the package's keel binary (keelBinary) into dir,
// for a test that needs it in a folder of its own (permissions, owner).
func buildImageBinary(t *testing.T, dir string) string {
	t.Helper()
	b, err := os.ReadFile(keelBinary(t))
	if err != nil {
		t.Fatal(err)
	}
	bin := filepath.Join(dir, "keel")
	if err := os.WriteFile(bin, b, 0o755); err != nil {
		t.Fatal(err)
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
