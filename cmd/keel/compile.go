package main

// keel render, compile and plan: the compiler from the command line.

import (
	"bytes"
	"context"
	"fmt"
	"maps"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/version"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/schemas"
	"github.com/openkeel/keel/status"
)

func renderCmd() *cobra.Command {
	var file, site string
	cmd := &cobra.Command{
		Use:   "render -f INPUT.yaml",
		Short: "Print the Cluster API documents of one cluster",
		Long: `render compiles one cluster: INPUT.yaml is a multi-document YAML stream
with the cluster template, the cluster and its nodegroups as stored in Git,
and optionally a Facts document (kind: Facts). "-" reads standard input.
--site compiles with a site file's defaults, as the API and keel compile do
with the repository's site.cue.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var data []byte
			var err error
			if file == "-" {
				data, err = readAll(cmd.InOrStdin())
			} else {
				data, err = os.ReadFile(file)
			}
			if err != nil {
				return err
			}
			d, err := intent.ParseDocuments(data)
			if err != nil {
				return fmt.Errorf("%s: %w", file, err)
			}
			in := compiler.Input{Documents: *d}
			if site != "" {
				src, err := os.ReadFile(site)
				if err != nil {
					return err
				}
				if in.Catalogue, err = schemas.SiteCatalogueSource(src); err != nil {
					return fmt.Errorf("--site %s: %w", site, err)
				}
			}
			docs, err := compiler.Compile(in)
			if err != nil {
				return err
			}
			_, err = cmd.OutOrStdout().Write(compiler.MarshalDocuments(docs))
			return err
		},
	}
	cmd.Flags().StringVarP(&file, "file", "f", "", "input file (template, cluster, nodegroups, optional facts)")
	cmd.Flags().StringVar(&site, "site", "", "site narrowing file (a repository's site.cue) whose defaults to apply")
	_ = cmd.MarkFlagRequired("file")
	return cmd
}

func readAll(r interface{ Read([]byte) (int, error) }) ([]byte, error) {
	var b bytes.Buffer
	_, err := b.ReadFrom(r)
	return b.Bytes(), err
}

// checkoutTree is a checkout's working tree as an intent.Tree (os.DirFS
// implements fs.ReadFileFS and fs.ReadDirFS).
func checkoutTree(dir string) intent.Tree { return os.DirFS(dir).(intent.Tree) }

// isBare tells a bare repository (HEAD and objects/ at the top) from a
// checkout.
func isBare(dir string) bool {
	_, e1 := os.Stat(filepath.Join(dir, "HEAD"))
	_, e2 := os.Stat(filepath.Join(dir, "objects"))
	return e1 == nil && e2 == nil
}

func openStore(dir string) (*gitstore.Store, error) {
	if _, err := os.Stat(dir); err != nil {
		return nil, err // gitstore.Open would create a repository
	}
	return gitstore.Open(dir)
}

func compileCmd() *cobra.Command {
	var check bool
	var repoDir string
	cmd := &cobra.Command{
		Use:   "compile [--check] [--repo DIR]",
		Short: "Re-render every cluster of a repository (or check that the committed output is current)",
		Long: `compile re-renders the Cluster API output of every cluster of a cluster
repository: a checkout (files rewritten in place) or a bare repository (one
commit on its HEAD, safe while keel serve writes to it). With --check nothing is written: the command lists the
clusters whose committed output differs from what this keel renders and
exits non-zero if there is any. Encrypted Secrets are kept as they are.
Clusters compile with the repository's site.cue, as the API does: after a
change of site.cue, --check lists the clusters whose output it changes and
compile re-renders them.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			var t intent.Tree
			bare := isBare(repoDir)
			if bare && !check {
				rendered, total, err := compileBare(cmd.Context(), repoDir)
				if err != nil {
					return err
				}
				for _, dir := range rendered {
					fmt.Fprintf(cmd.OutOrStdout(), "rendered: %s\n", dir)
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%d clusters, %d re-rendered\n", total, len(rendered))
				return nil
			}
			if bare {
				st, err := openStore(repoDir)
				if err != nil {
					return err
				}
				sn, err := st.SnapshotHead()
				if err != nil {
					return err
				}
				t = sn
			} else {
				t = checkoutTree(repoDir)
			}
			dirs, err := intent.ClusterDirs(t)
			if err != nil {
				return err
			}
			cat, err := schemas.SiteCatalogue(t)
			if err != nil {
				return err
			}
			out := cmd.OutOrStdout()
			stale := 0
			for _, dir := range dirs {
				fresh, problems, err := repo.Staleness(t, dir, cat)
				if err != nil {
					return err
				}
				if len(problems) == 0 {
					continue
				}
				stale++
				if check {
					fmt.Fprintf(out, "stale: %s (%s)\n", dir, strings.Join(problems, ", "))
					continue
				}
				if err := writeRendered(repoDir, t, dir, fresh); err != nil {
					return err
				}
				fmt.Fprintf(out, "rendered: %s\n", dir)
			}
			if check && stale > 0 {
				return fmt.Errorf("%d of %d clusters have stale rendered output", stale, len(dirs))
			}
			fmt.Fprintf(out, "%d clusters, %d %s\n", len(dirs), stale, map[bool]string{true: "stale", false: "re-rendered"}[check])
			return nil
		},
	}
	cmd.Flags().BoolVar(&check, "check", false, "only report clusters whose committed output is stale (exit status 1 if any)")
	cmd.Flags().StringVar(&repoDir, "repo", ".", "cluster repository: a checkout or a bare repository")
	return cmd
}

// renderedChanges are the changes that replace the compiler's documents of a
// rendered folder, keeping its Secrets and listing both in the kustomization.
// Paths are relative to the repository root.
func renderedChanges(t intent.Tree, dir string, fresh map[string]compiler.Document) ([]gitstore.Change, error) {
	rendered := intent.RenderedPath(dir)
	files, err := repo.FileNames(t, rendered)
	if err != nil {
		return nil, err
	}
	var docs []compiler.Document
	var changes []gitstore.Change
	for _, f := range files {
		switch {
		case strings.HasPrefix(f, compiler.SecretFilePrefix):
			docs = append(docs, compiler.Document{Path: f})
		case !fresh[f].HasContent() && f != compiler.KustomizationFile: // rewritten below
			changes = append(changes, gitstore.Change{Path: path.Join(rendered, f), Delete: true})
		}
	}
	for _, p := range slices.Sorted(maps.Keys(fresh)) {
		docs = append(docs, fresh[p])
	}
	for _, d := range compiler.WithKustomization(docs) {
		if d.HasContent() {
			changes = append(changes, gitstore.Change{Path: path.Join(rendered, d.Path), Data: d.Bytes()})
		}
	}
	return changes, nil
}

// writeRendered applies a folder's renderedChanges to a checkout.
func writeRendered(root string, t intent.Tree, dir string, fresh map[string]compiler.Document) error {
	changes, err := renderedChanges(t, dir, fresh)
	if err != nil {
		return err
	}
	for _, c := range changes {
		full := filepath.Join(root, filepath.FromSlash(c.Path))
		if c.Delete {
			if err := os.Remove(full); err != nil {
				return err
			}
			continue
		}
		if err := os.MkdirAll(filepath.Dir(full), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(full, c.Data, 0o644); err != nil {
			return err
		}
	}
	return nil
}

// compileBare re-renders the stale clusters of a bare repository's HEAD as
// one commit, recomputed on the new HEAD if keel (or a push) moves the
// branch meanwhile, so nothing written concurrently is lost.
func compileBare(ctx context.Context, repoDir string) (rendered []string, total int, err error) {
	st, err := openStore(repoDir)
	if err != nil {
		return nil, 0, err
	}
	_, err = st.Update(ctx, func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		rendered, total = nil, 0
		t := sn
		dirs, err := intent.ClusterDirs(t)
		if err != nil {
			return nil, err
		}
		total = len(dirs)
		cat, err := schemas.SiteCatalogue(t)
		if err != nil {
			return nil, err
		}
		var changes []gitstore.Change
		for _, dir := range dirs {
			fresh, problems, err := repo.Staleness(t, dir, cat)
			if err != nil {
				return nil, err
			}
			if len(problems) == 0 {
				continue
			}
			cs, err := renderedChanges(t, dir, fresh)
			if err != nil {
				return nil, err
			}
			changes = append(changes, cs...)
			rendered = append(rendered, dir)
		}
		if len(changes) == 0 {
			return nil, nil
		}
		return &gitstore.Commit{
			Subject:  fmt.Sprintf("compile: re-render %d of %d clusters with keel %s", len(rendered), total, version.Version),
			Body:     strings.Join(rendered, "\n"),
			Author:   gitstore.Signature{Name: "keel compile", Email: "keel@localhost"},
			Trailers: []gitstore.Trailer{{Key: gitstore.TrailerOperation, Value: status.OpCompile}},
			Changes:  changes,
		}, nil
	})
	return rendered, total, err
}

func planCmd() *cobra.Command {
	var base, head, repoDir string
	cmd := &cobra.Command{
		Use:   "plan [--base REV] [--head REV] [--repo DIR]",
		Short: "Show what a change does to the Cluster API objects of each cluster it touches",
		Long: `plan compares two revisions of a cluster repository. For each cluster whose
rendered output (or ClusterClass) changes, it computes the desired state of
both revisions with Cluster API's own topology generator and prints which
fields of the OpenStackCluster, the KubeadmControlPlane, the
MachineDeployments and their templates change, and whether the change is a
no-op, applied in place, or rolls machines (control plane, nodegroups).`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			st, err := openStore(repoDir)
			if err != nil {
				return err
			}
			snap := func(rev string) (*gitstore.Snapshot, error) {
				h, err := st.Resolve(rev)
				if err != nil {
					return nil, fmt.Errorf("revision %s: %w", rev, err)
				}
				return st.SnapshotAt(h)
			}
			bs, err := snap(base)
			if err != nil {
				return err
			}
			hs, err := snap(head)
			if err != nil {
				return err
			}
			plans, err := repo.PlanChange(cmd.Context(), bs, hs)
			if err != nil {
				return err
			}
			fmt.Fprint(cmd.OutOrStdout(), repo.FormatPlans(plans))
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "HEAD~1", "base revision")
	cmd.Flags().StringVar(&head, "head", "HEAD", "head revision")
	cmd.Flags().StringVar(&repoDir, "repo", ".", "cluster repository (bare or checkout)")
	return cmd
}
