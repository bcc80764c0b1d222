package main

// keel import: an existing Magnum cloud into keel's repository
// (magnumimport, docs/migration.md).

import (
	"errors"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/openkeel/keel/magnumimport"
)

func importCmd() *cobra.Command {
	var dbURL, repoDir string
	var plan bool
	cmd := &cobra.Command{
		Use:   "import --magnum-db URL [--plan] [--repo DIR]",
		Short: "Import Magnum's templates, clusters, nodegroups and quotas into the cluster repository",
		Long: `import reads Magnum's database read-only (URL is magnum.conf's [database]
connection: mysql+pymysql://USER:PASSWORD@HOST/magnum, postgresql://...,
sqlite:////path) and writes its cluster templates, clusters (read-only
records: keel does not manage them yet), nodegroups and quotas into the
cluster repository, one commit per project. A second run writes only what
changed. --plan prints what would be written and what cannot be imported,
and writes nothing. Any object keel cannot import refuses the whole import.
See docs/migration.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			src, err := magnumimport.ParseURL(dbURL)
			if err != nil {
				return err
			}
			store, err := openStore(repoDir)
			if err != nil {
				return fmt.Errorf("--repo %s: %w", repoDir, err)
			}
			m, err := magnumimport.Read(cmd.Context(), src)
			if err != nil {
				return err
			}
			p, err := magnumimport.PlanOn(store, m)
			if err != nil {
				return err
			}
			if plan {
				if err := p.Print(cmd.OutOrStdout()); err != nil || len(p.Refused) == 0 {
					return err
				}
				return fmt.Errorf("%d objects cannot be imported (listed above)", len(p.Refused))
			}
			made, err := magnumimport.Apply(cmd.Context(), store, m)
			for _, h := range made {
				fmt.Fprintf(cmd.OutOrStdout(), "committed %s\n", h)
			}
			if errors.Is(err, magnumimport.ErrRefused) {
				_ = p.Print(cmd.ErrOrStderr())
			}
			if err == nil {
				fmt.Fprintf(cmd.OutOrStdout(), "%d commits from %s\n", len(made), src.Display)
			}
			return err
		},
	}
	cmd.Flags().StringVar(&dbURL, "magnum-db", "", "Magnum's database URL, as magnum.conf's [database] connection holds it")
	cmd.Flags().BoolVar(&plan, "plan", false, "print what would be imported and what cannot be, and write nothing")
	cmd.Flags().StringVar(&repoDir, "repo", "./.keel/repo.git", "the cluster repository (keel serve's DATA-DIR/repo.git, a bare Git repository)")
	_ = cmd.MarkFlagRequired("magnum-db")
	return cmd
}
