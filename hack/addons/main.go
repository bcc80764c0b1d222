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
	"strings"

	"sigs.k8s.io/yaml"
)

type source struct {
	Addon   string `json:"addon"`
	Module  string `json:"module"`
	Version string `json:"version"`
	Sum     string `json:"sum"`
	Path    string `json:"path"`
	// Dest names the copy under upstream/ (a file or a folder, as Path
	// is); "chart" when empty.
	Dest string `json:"dest,omitempty"`
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
	// An addon may have several sources (one per upstream release it
	// supports); its upstream/ is rebuilt from all of them, and SOURCE
	// lists them all.
	var order []string
	byAddon := map[string][]source{}
	for _, s := range sources {
		if s.Dest == "" {
			s.Dest = "chart"
		}
		if s.Dest != filepath.Base(s.Dest) || s.Dest == "README.md" || s.Dest == "SOURCE" {
			return fmt.Errorf("addons/sources.yaml: %s: dest %q must be a plain name other than README.md and SOURCE", s.Addon, s.Dest)
		}
		if _, ok := byAddon[s.Addon]; !ok {
			order = append(order, s.Addon)
		}
		byAddon[s.Addon] = append(byAddon[s.Addon], s)
	}
	for _, addon := range order {
		if err := copyAddon(root, addon, byAddon[addon]); err != nil {
			return fmt.Errorf("%s: %w", addon, err)
		}
	}
	return nil
}

func copyAddon(root, addon string, sources []source) error {
	// upstream/README.md is keel's (committed, so that the embed pattern
	// matches in a fresh checkout); the rest is replaced.
	dst := filepath.Join(root, "addons", addon, "upstream")
	entries, err := os.ReadDir(dst)
	if err != nil && !os.IsNotExist(err) {
		return err
	}
	for _, e := range entries {
		if e.Name() == "README.md" {
			continue
		}
		if err := os.RemoveAll(filepath.Join(dst, e.Name())); err != nil {
			return err
		}
	}
	if err := os.MkdirAll(dst, 0o755); err != nil {
		return err
	}
	var stamp strings.Builder
	for _, s := range sources {
		if err := copySource(dst, s); err != nil {
			return fmt.Errorf("%s@%s: %w", s.Module, s.Version, err)
		}
		fmt.Fprintf(&stamp, "- module: %s\n  version: %s\n  sum: %s\n  path: %s\n  dest: %s\n", s.Module, s.Version, s.Sum, s.Path, s.Dest)
	}
	return os.WriteFile(filepath.Join(dst, "SOURCE"), []byte(stamp.String()), 0o644)
}

func copySource(dst string, s source) error {
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
	src := filepath.Join(m.Dir, filepath.FromSlash(s.Path))
	return filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, err := filepath.Rel(src, p)
		if err != nil {
			return err
		}
		target := filepath.Join(dst, s.Dest, rel)
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
}
