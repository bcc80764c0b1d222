package main

import (
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
)

// A change of site.cue changes what the clusters compile to: keel compile
// --check reports them stale, keel compile re-renders them with the site's
// defaults (bare repository and checkout alike).
func TestCompileFollowsSiteFileChange(t *testing.T) {
	const site = "site: allowed: octavia_provider: [\"ovn\"]\nsite: defaults: octavia_provider: \"ovn\"\n"
	cdir := "projects/p1/clusters/demo-kube-ab12c"
	const wantStale = "stale: projects/p1/clusters/demo-kube-ab12c (outdated cluster.yaml)"

	t.Run("bare", func(t *testing.T) {
		dir := filepath.Join(t.TempDir(), "repo.git")
		st, err := gitstore.Open(dir)
		if err != nil {
			t.Fatal(err)
		}
		commitFiles(t, st, repoFiles(t))
		if out, err := run(t, "compile", "--repo", dir); err != nil {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		commitFiles(t, st, map[string][]byte{"site.cue": []byte(site)})
		if out, err := run(t, "compile", "--repo", dir, "--check"); err == nil || !strings.Contains(out, wantStale) {
			t.Fatalf("--check after a site.cue change: %v\n%s", err, out)
		}
		if out, err := run(t, "compile", "--repo", dir); err != nil || !strings.Contains(out, "rendered: "+cdir) {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		if out, err := run(t, "compile", "--repo", dir, "--check"); err != nil {
			t.Fatalf("--check after compile: %v\n%s", err, out)
		}
		sn, err := st.SnapshotHead()
		if err != nil {
			t.Fatal(err)
		}
		data, err := sn.ReadFile(path.Join(intent.RenderedPath(cdir), "cluster.yaml"))
		if err != nil || !strings.Contains(string(data), "provider: ovn") {
			t.Fatalf("rendered cluster without the site default provider ovn (%v):\n%s", err, data)
		}
	})

	t.Run("checkout", func(t *testing.T) {
		root := t.TempDir()
		for p, data := range repoFiles(t) {
			full := filepath.Join(root, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(full, data, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		if out, err := run(t, "compile", "--repo", root); err != nil {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		if err := os.WriteFile(filepath.Join(root, "site.cue"), []byte(site), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run(t, "compile", "--repo", root, "--check"); err == nil || !strings.Contains(out, wantStale) {
			t.Fatalf("--check after a site.cue change: %v\n%s", err, out)
		}
		if out, err := run(t, "compile", "--repo", root); err != nil {
			t.Fatalf("compile: %v\n%s", err, out)
		}
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(intent.RenderedPath(cdir)), "cluster.yaml"))
		if err != nil || !strings.Contains(string(data), "provider: ovn") {
			t.Fatalf("rendered cluster without the site default provider ovn (%v):\n%s", err, data)
		}
		// A broken site file (its allowed list leaves out the catalogue's
		// default) stops the command instead of rendering without it.
		if err := os.WriteFile(filepath.Join(root, "site.cue"), []byte("site: allowed: calico_tag: [\"v3.28.5\"]\n"), 0o644); err != nil {
			t.Fatal(err)
		}
		if out, err := run(t, "compile", "--repo", root, "--check"); err == nil || !strings.Contains(err.Error(), "site.cue") {
			t.Fatalf("--check with a broken site.cue: %v\n%s", err, out)
		}
	})
}
