package main

import (
	"fmt"
	"os"
	"path/filepath"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/openkeel/keel/readmodel"
)

func statusCmd() *cobra.Command {
	var dataDir, database string
	cmd := &cobra.Command{
		Use:   "status",
		Short: "Show every cluster: Magnum status, whether Git HEAD is applied, and why not",
		RunE: func(cmd *cobra.Command, _ []string) error {
			if database == "" {
				database = filepath.Join(dataDir, "keel.db")
				if _, err := os.Stat(database); err != nil {
					return fmt.Errorf("no read model at %s (is --data-dir right?)", database)
				}
			}
			db, err := readmodel.Open(cmd.Context(), database)
			if err != nil {
				return err
			}
			defer db.Close()
			vs, err := db.ListClusters(cmd.Context(), readmodel.Scope{All: true})
			if err != nil {
				return err
			}
			w := tabwriter.NewWriter(cmd.OutOrStdout(), 0, 4, 2, ' ', 0)
			fmt.Fprintln(w, "CLUSTER\tPROJECT\tSTACK\tSTATUS\tIN GIT\tAPPLIED\tREASON")
			for _, v := range vs {
				applied := "no"
				switch {
				case v.AppliedRevision == v.DesiredRevision:
					applied = "yes"
				case v.ApplyError != "":
					applied = "failed"
				}
				reason := v.Result.StatusReason
				if v.ApplyError != "" && v.AppliedRevision != v.DesiredRevision {
					reason = v.ApplyError
				}
				fmt.Fprintf(w, "%s\t%s\t%s\t%s\t%v\t%s\t%s\n", v.Name, v.ProjectID, v.StackID, v.Result.Status, v.InGit, applied, reason)
			}
			return w.Flush()
		},
	}
	cmd.Flags().StringVar(&dataDir, "data-dir", "./.keel", "keel's data folder")
	cmd.Flags().StringVar(&database, "database", "", "read model (default DATA-DIR/keel.db)")
	return cmd
}
