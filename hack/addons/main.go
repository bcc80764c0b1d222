// Command addons copies the upstream charts and manifests the addons are
// rendered from (addons/sources.yaml) out of the Go module cache into each
// addon's git-ignored upstream/ folder, which the addon package embeds.
// Third-party content is never committed: this step runs before every
// build (make build, run, test, .ci/run, the Dockerfile).
//
//	go run ./hack/addons [-root .]
package main

import (
	"encoding/json"
	"flag"
	"fmt"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"

	"sigs.k8s.io/yaml"
)

type source struct {
	Addon   string `json:"addon"`
	Module  string `json:"module"`
	Version string `json:"version"`
	Sum     string `json:"sum"`
	Path    string `json:"path"`
}

func main() {
	root := flag.String("root", ".", "keel's source tree")
	flag.Parse()
	if err := run(*root); err != nil {
		fmt.Fprintln(os.Stderr, "addons:", err)
		os.Exit(1)
	}
}

func run(root string) error {
	data, err := os.ReadFile(filepath.Join(root, "addons", "sources.yaml"))
	if err != nil {
		return err
	}
	var sources []source
	if err := yaml.UnmarshalStrict(data, &sources); err != nil {
		return fmt.Errorf("addons/sources.yaml: %w", err)
	}
	for _, s := range sources {
		if err := copySource(root, s); err != nil {
			return fmt.Errorf("%s: %w", s.Addon, err)
		}
	}
	return nil
}

func copySource(root string, s source) error {
	// go mod download verifies the module against the checksum database
	// (or GONOSUMDB's rules); the pinned sum makes a different version or
	// content an error here, not a silent change of what keel renders.
	out, err := exec.Command("go", "mod", "download", "-json", s.Module+"@"+s.Version).Output()
	if err != nil {
		return fmt.Errorf("go mod download %s@%s: %w", s.Module, s.Version, err)
	}
	var m struct{ Dir, Sum, Error string }
	if err := json.Unmarshal(out, &m); err != nil {
		return err
	}
	if m.Error != "" {
		return fmt.Errorf("go mod download: %s", m.Error)
	}
	if m.Sum != s.Sum {
		return fmt.Errorf("%s@%s has sum %s, addons/sources.yaml pins %s", s.Module, s.Version, m.Sum, s.Sum)
	}
	// upstream/README.md is keel's (committed, so that the embed pattern
	// matches in a fresh checkout); the rest is replaced.
	dst := filepath.Join(root, "addons", s.Addon, "upstream")
	if err := os.RemoveAll(filepath.Join(dst, "chart")); err != nil {
		return err
	}
	src := filepath.Join(m.Dir, filepath.FromSlash(s.Path))
	err = filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, "chart", rel)
		if d.IsDir() {
			return os.MkdirAll(target, 0o755)
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		// The module cache is read-only; the copy is not.
		return os.WriteFile(target, b, 0o644)
	})
	if err != nil {
		return err
	}
	stamp := fmt.Sprintf("module: %s\nversion: %s\nsum: %s\npath: %s\n", s.Module, s.Version, s.Sum, s.Path)
	return os.WriteFile(filepath.Join(dst, "SOURCE"), []byte(stamp), 0o644)
}
