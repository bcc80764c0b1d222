package repo

import (
	"errors"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strings"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/schemas"
)

// FileNames lists the files (not folders) of the folder p of a tree; a
// missing folder has none.
func FileNames(t intent.Tree, p string) ([]string, error) {
	es, err := t.ReadDir(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	var out []string
	for _, e := range es {
		if !e.IsDir() {
			out = append(out, e.Name())
		}
	}
	return out, err
}

// CompiledDocs are the documents the compiler owns in a rendered folder,
// by path: everything but the Secrets (encrypted by repo) and the
// kustomization (which lists both).
func CompiledDocs(docs []compiler.Document) map[string]compiler.Document {
	out := map[string]compiler.Document{}
	for _, d := range docs {
		if d.Path == compiler.KustomizationFile || strings.HasPrefix(d.Path, compiler.SecretFilePrefix) {
			continue
		}
		out[d.Path] = d
	}
	return out
}

// Staleness compares a cluster's committed output with a fresh compilation
// under the tree's site catalogue cat (what `keel compile --check` does for
// each cluster): a change of site.cue makes the clusters whose output it
// changes stale. problems is empty when the folder is current.
func Staleness(t intent.Tree, dir string, cat *schemas.Catalogue) (fresh map[string]compiler.Document, problems []string, err error) {
	c, err := intent.ReadClusterDocument(t, dir)
	if err != nil {
		return nil, nil, err
	}
	if c.ReadOnly() {
		return nil, nil, nil // an imported record: never rendered
	}
	d, err := intent.ReadDocuments(t, dir)
	if err != nil {
		return nil, nil, err
	}
	// Secret material is not read: the compiled Secrets are checked by
	// repo, which holds the keys.
	docs, err := compiler.Compile(compiler.Input{Documents: *d, Catalogue: cat})
	if err != nil {
		return nil, nil, fmt.Errorf("%s: %w", dir, err)
	}
	fresh = CompiledDocs(docs)
	rendered := intent.RenderedPath(dir)
	files, err := FileNames(t, rendered)
	if err != nil {
		return nil, nil, err
	}
	have := map[string]bool{}
	for _, f := range files {
		have[f] = true
		if f == compiler.KustomizationFile || strings.HasPrefix(f, compiler.SecretFilePrefix) {
			continue
		}
		if _, ok := fresh[f]; !ok {
			problems = append(problems, "extra "+f)
		}
	}
	for _, p := range slices.Sorted(maps.Keys(fresh)) {
		if !have[p] {
			problems = append(problems, "missing "+p)
			continue
		}
		data, err := t.ReadFile(path.Join(rendered, p))
		if err != nil {
			return nil, nil, err
		}
		if !fresh[p].Equal(data) {
			problems = append(problems, "outdated "+p)
		}
	}
	return fresh, problems, nil
}
