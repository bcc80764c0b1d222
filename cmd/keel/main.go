// Command keel is a Magnum (container-infra API v1) service whose source of
// truth is a Git repository and whose clusters are Cluster API clusters.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/internal/version"
)

func main() {
	root := &cobra.Command{
		Use:           "keel",
		Short:         "keel: Kubernetes-on-OpenStack as a service, with Git as the source of truth",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(serveCmd(), managementCmd(), testbinCmd(), dbCmd(), versionCmd(), vetCmd(), statusCmd(), renderCmd(), compileCmd(), planCmd(), repoCmd(), importCmd())
	if err := root.Execute(); err != nil {
		if err != errVetFailed { // vet already printed one line per violation
			fmt.Fprintln(os.Stderr, "keel:", err)
		}
		os.Exit(1)
	}
}

func versionCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print keel's version and the ClusterClass it renders",
		RunE: func(*cobra.Command, []string) error {
			name, err := compiler.ClusterClassName(version.Version)
			if err != nil {
				return err
			}
			fmt.Printf("keel %s (ClusterClass %s)\n", version.Version, name)
			return nil
		},
	}
}
