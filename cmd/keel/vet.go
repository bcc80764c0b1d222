package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path"
	"path/filepath"

	git "github.com/go-git/go-git/v5"
	"github.com/go-git/go-git/v5/plumbing"
	"github.com/spf13/cobra"

	"github.com/openkeel/keel/schemas"
)

func vetCmd() *cobra.Command {
	var base string
	var o schemas.VetOptions
	cmd := &cobra.Command{
		Use:   "vet [PATH...]",
		Short: "Validate a cluster repository against the schema (exit 1 with one line per violation)",
		Long: `Validate every cluster template, cluster, nodegroup and quota of a cluster repository
(a checkout) against keel's CUE schema, with the repository's site.cue narrowing.
With --base REV, also refuse changes of immutable fields and labels since REV.
Unknown labels are warnings (on stderr); violations go to stdout and make it exit 1.`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				args = []string{"."}
			}
			failed := false
			for _, root := range args {
				vs, ws, err := schemas.Vet(root, o)
				if err != nil {
					return err
				}
				if base != "" {
					more, err := immutableSince(root, base)
					if err != nil {
						return err
					}
					vs = append(vs, more...)
				}
				for _, w := range ws {
					fmt.Fprintln(cmd.ErrOrStderr(), "warning:", w.String())
				}
				for _, v := range vs {
					fmt.Fprintln(cmd.OutOrStdout(), v.String())
				}
				failed = failed || len(vs) > 0
			}
			if failed {
				return errVetFailed
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&base, "base", "", "also check immutable fields against this revision (e.g. origin/main)")
	cmd.Flags().BoolVar(&o.Strict, "strict", false, "refuse labels that are not in the catalogue")
	cmd.Flags().StringSliceVar(&o.Allow, "allow", nil, "label names or prefixes* that --strict accepts anyway")
	cmd.Flags().StringVar(&o.SiteFile, "site", "", "site narrowing file relative to PATH (default site.cue)")
	return cmd
}

var errVetFailed = errors.New("the repository has violations")

// immutableSince compares every intent document under root with its version
// at revision base of the enclosing Git repository.
func immutableSince(root, base string) ([]schemas.Violation, error) {
	repo, err := git.PlainOpenWithOptions(root, &git.PlainOpenOptions{DetectDotGit: true})
	if err != nil {
		return nil, fmt.Errorf("--base needs %s to be inside a Git checkout: %w", root, err)
	}
	wt, err := repo.Worktree()
	if err != nil {
		return nil, err
	}
	absRoot, err := filepath.Abs(root)
	if err != nil {
		return nil, err
	}
	prefix, err := filepath.Rel(wt.Filesystem.Root(), absRoot)
	if err != nil {
		return nil, err
	}
	h, err := repo.ResolveRevision(plumbing.Revision(base))
	if err != nil {
		return nil, fmt.Errorf("--base %s: %w", base, err)
	}
	commit, err := repo.CommitObject(*h)
	if err != nil {
		return nil, err
	}
	tree, err := commit.Tree()
	if err != nil {
		return nil, err
	}
	var paths []string
	err = filepath.WalkDir(absRoot, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(absRoot, p)
		paths = append(paths, filepath.ToSlash(rel))
		return nil
	})
	if err != nil {
		return nil, err
	}
	old := func(rel string) ([]byte, error) {
		f, err := tree.File(path.Join(filepath.ToSlash(prefix), rel))
		if err != nil {
			return nil, fs.ErrNotExist // new in this change: nothing to compare with
		}
		r, err := f.Reader()
		if err != nil {
			return nil, err
		}
		defer r.Close()
		return io.ReadAll(r)
	}
	cur := func(rel string) ([]byte, error) { return os.ReadFile(filepath.Join(absRoot, filepath.FromSlash(rel))) }
	return schemas.ImmutableChanges(paths, old, cur)
}
