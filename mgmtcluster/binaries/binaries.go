// Package binaries locates (and on first use builds) the kube-apiserver,
// kube-controller-manager and etcd binaries that keel's management cluster runs. They are built from the
// Go modules pinned in hack/tools/go.mod by hack/testbin.sh, the one place
// that knows how; this package only finds that script and its output.
package binaries

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
)

// Versions of the binaries; TestVersionsMatchToolsModule keeps them equal to
// hack/tools/go.mod.
const (
	KubernetesVersion = "v1.35.4"
	EtcdVersion       = "v3.6.6"
)

// Dir is where the binaries live: $KEEL_TESTBIN, else a per-version folder
// under the user's cache directory, outside any clone.
func Dir() string {
	if d := os.Getenv("KEEL_TESTBIN"); d != "" {
		return d
	}
	cache := os.Getenv("XDG_CACHE_HOME")
	if cache == "" {
		home, err := os.UserHomeDir()
		if err != nil {
			home = os.TempDir()
		}
		cache = filepath.Join(home, ".cache")
	}
	return filepath.Join(cache, "keel", "testbin",
		fmt.Sprintf("k8s-%s-etcd-%s", strings.TrimPrefix(KubernetesVersion, "v"), strings.TrimPrefix(EtcdVersion, "v")))
}

// Names are the binaries hack/testbin.sh builds into Dir.
var Names = []string{"etcd", "kube-apiserver", "kube-controller-manager"}

// Present reports whether all the binaries are in Dir.
func Present() bool {
	for _, b := range Names {
		if fi, err := os.Stat(filepath.Join(Dir(), b)); err != nil || fi.Mode()&0o111 == 0 {
			return false
		}
	}
	return true
}

// Ensure returns Dir, building the binaries first when they are missing.
// Build progress goes to progress.
func Ensure(ctx context.Context, progress io.Writer) (string, error) {
	if Present() {
		return Dir(), nil
	}
	script, err := FindScript()
	if err != nil {
		return "", fmt.Errorf("%s are not all in %s and cannot be built: %w", strings.Join(Names, ", "), Dir(), err)
	}
	cmd := exec.CommandContext(ctx, "bash", script)
	cmd.Env = append(os.Environ(), "KEEL_TESTBIN="+Dir())
	var out bytes.Buffer
	cmd.Stdout = &out
	cmd.Stderr = progress
	if err := cmd.Run(); err != nil {
		return "", fmt.Errorf("building the management cluster binaries with %s: %w", script, err)
	}
	if !Present() {
		return "", fmt.Errorf("%s finished but %s lacks one of %s", script, Dir(), strings.Join(Names, ", "))
	}
	return Dir(), nil
}

// FindScript finds hack/testbin.sh: $KEEL_SOURCE_DIR, else the nearest parent
// of the working directory that holds it.
func FindScript() (string, error) {
	if d := os.Getenv("KEEL_SOURCE_DIR"); d != "" {
		return filepath.Join(d, "hack", "testbin.sh"), nil
	}
	root, err := SourceRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "hack", "testbin.sh"), nil
}

// SourceRoot is the nearest parent of the working directory that holds
// keel's source (hack/tools/go.mod).
func SourceRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "hack", "tools", "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", errors.New("keel's source tree (hack/tools/go.mod) is not above the working directory; set KEEL_TESTBIN to a folder holding etcd, kube-apiserver and kube-controller-manager, or KEEL_SOURCE_DIR to keel's source")
		}
		dir = parent
	}
}
