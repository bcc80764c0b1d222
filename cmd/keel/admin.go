package main

import (
	"fmt"
	"os"
	"path/filepath"

	"github.com/spf13/cobra"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/mgmtcluster/binaries"
	"github.com/openkeel/keel/readmodel"
)

func testbinCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "testbin",
		Short: "Build (once) the kube-apiserver, kube-controller-manager and etcd of the embedded management cluster; print their folder",
		RunE: func(cmd *cobra.Command, _ []string) error {
			dir, err := binaries.Ensure(cmd.Context(), os.Stderr)
			if err != nil {
				return err
			}
			fmt.Println(dir)
			return nil
		},
	}
}

func dbCmd() *cobra.Command {
	var dataDir, database string
	db := &cobra.Command{Use: "db", Short: "Maintain the read model"}
	rebuild := &cobra.Command{
		Use:   "rebuild",
		Short: "Recreate the read model from the Git repository (observed status is refreshed by a running keel)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := gitstore.Open(filepath.Join(dataDir, "repo.git"))
			if err != nil {
				return err
			}
			if database == "" {
				database = filepath.Join(dataDir, "keel.db")
			}
			d, err := readmodel.Open(cmd.Context(), database)
			if err != nil {
				return err
			}
			defer d.Close()
			if err := d.Rebuild(cmd.Context(), store); err != nil {
				return err
			}
			head, _ := store.Head()
			fmt.Printf("keel: read model rebuilt from %s\n", head)
			return nil
		},
	}
	rebuild.Flags().StringVar(&dataDir, "data-dir", "./.keel", "keel's data folder")
	rebuild.Flags().StringVar(&database, "database", "", "read model (default DATA-DIR/keel.db)")
	db.AddCommand(rebuild)
	return db
}

// repoCmd maintains the cluster repository itself.
func repoCmd() *cobra.Command {
	repo := &cobra.Command{Use: "repo", Short: "Maintain the cluster repository"}
	var dir string
	repair := &cobra.Command{
		Use:   "repair",
		Short: "Commit the branch's tree without the entries Git cannot check out (stop keel first; docs/repository.md)",
		RunE: func(cmd *cobra.Command, _ []string) error {
			store, err := gitstore.OpenForRepair(dir)
			if err != nil {
				return err
			}
			before, _ := store.Head()
			after, err := store.Repair(cmd.Context())
			if err != nil {
				return err
			}
			if after == before {
				fmt.Printf("keel: %s can be checked out; nothing to repair\n", dir)
				return nil
			}
			fmt.Printf("keel: committed %s, the tree without the entries Git cannot check out; run `keel db rebuild` before starting keel\n", after)
			return nil
		},
	}
	repair.Flags().StringVar(&dir, "repo", "./.keel/repo.git", "the cluster repository (a bare Git repository)")
	repo.AddCommand(repair)
	return repo
}
