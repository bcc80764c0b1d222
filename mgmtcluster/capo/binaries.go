package capo

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"strings"

	"github.com/openkeel/keel/mgmtcluster/binaries"
)

// Module paths of the two providers, as hack/capo/go.mod and
// hack/orc/go.mod pin them.
const (
	CAPOModule = "sigs.k8s.io/cluster-api-provider-openstack"
	ORCModule  = "github.com/k-orc/openstack-resource-controller/v2"
)

// Binaries are the built providers and the module folders their CRDs and
// webhook configurations are read from (the same versions).
type Binaries struct {
	CAPO, ORC       string // executables
	CAPODir, ORCDir string // module folders in the module cache
}

// EnsureBinaries builds CAPO and ORC with hack/capo.sh when they are not in
// the cache yet (minutes, once per version; progress to progress) and finds
// their module folders.
func EnsureBinaries(ctx context.Context, progress io.Writer) (*Binaries, error) {
	root, err := sourceRoot()
	if err != nil {
		return nil, err
	}
	cmd := exec.CommandContext(ctx, "bash", filepath.Join(root, "hack", "capo.sh"))
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, progress
	if err := cmd.Run(); err != nil {
		return nil, fmt.Errorf("building CAPO and ORC with hack/capo.sh: %w", err)
	}
	paths := strings.Fields(out.String())
	if len(paths) != 2 {
		return nil, fmt.Errorf("hack/capo.sh printed %q, want the CAPO and ORC paths", out.String())
	}
	b := &Binaries{CAPO: paths[0], ORC: paths[1]}
	if b.CAPODir, err = moduleDir(ctx, filepath.Join(root, "hack", "capo"), CAPOModule); err != nil {
		return nil, err
	}
	if b.ORCDir, err = moduleDir(ctx, filepath.Join(root, "hack", "orc"), ORCModule); err != nil {
		return nil, err
	}
	return b, nil
}

// sourceRoot is keel's source folder ($KEEL_SOURCE_DIR, else the nearest
// parent of the working directory with hack/tools/go.mod): the providers
// are built from its hack/capo and hack/orc modules.
func sourceRoot() (string, error) {
	if d := os.Getenv("KEEL_SOURCE_DIR"); d != "" {
		return d, nil
	}
	return binaries.SourceRoot()
}

// moduleDir asks the go command, in the module at dir, where path's
// module (at the version that go.mod pins) lies in the module cache; it
// downloads it if needed (the build above already did).
func moduleDir(ctx context.Context, dir, path string) (string, error) {
	cmd := exec.CommandContext(ctx, "go", "list", "-m", "-json", path)
	cmd.Dir = dir
	cmd.Env = append(os.Environ(), "GOFLAGS=-mod=mod")
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("finding the %s module from %s: %w", path, dir, err)
	}
	var m struct{ Dir string }
	if err := json.Unmarshal(out, &m); err != nil || m.Dir == "" {
		return "", fmt.Errorf("finding the %s module from %s: no folder in %q", path, dir, out)
	}
	return m.Dir, nil
}
