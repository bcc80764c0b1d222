// Command gen regenerates the files derived from the CUE schema:
// schemas/labels_gen.go and docs/labels.md. Run it
// with `go generate ./schemas` (or `go run ./schemas/internal/gen` from the
// repository root).
package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/openkeel/keel/schemas"
)

func main() {
	if err := run(); err != nil {
		fmt.Fprintln(os.Stderr, "gen:", err)
		os.Exit(1)
	}
}

func run() error {
	root, err := repoRoot()
	if err != nil {
		return err
	}
	c, err := schemas.Load()
	if err != nil {
		return err
	}
	consts, err := c.GenerateGoConstants()
	if err != nil {
		return err
	}
	for path, data := range map[string][]byte{
		schemas.GoConstantsFile: consts,
		schemas.LabelsDocFile:   c.GenerateLabelsDoc(),
	} {
		if err := os.WriteFile(filepath.Join(root, path), data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// repoRoot finds the directory holding go.mod, from the working directory up
// (go generate runs in ./schemas, go run usually at the root).
func repoRoot() (string, error) {
	dir, err := os.Getwd()
	if err != nil {
		return "", err
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir, nil
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			return "", fmt.Errorf("no go.mod above the working directory")
		}
		dir = parent
	}
}
