package main

// keel import: an existing Magnum cloud into keel's repository
// (magnumimport, docs/migration.md).

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"

	"github.com/gophercloud/gophercloud/v2/openstack/config/clouds"
	"github.com/spf13/cobra"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/magnumimport"
	"github.com/openkeel/keel/repo"
)

// importOptions are keel import's flags.
type importOptions struct {
	dbURL, repoDir, dataDir, certDir, osCloud, kubeconfig string
	plan, adopt, adoptChanges                             bool
}

func importCmd() *cobra.Command {
	var o importOptions
	cmd := &cobra.Command{
		Use:   "import --magnum-db URL [--magnum-cert-dir DIR] [--os-cloud NAME] [--adopt --kubeconfig FILE] [--plan] [--repo DIR]",
		Short: "Import Magnum's templates, clusters, nodegroups and quotas into the cluster repository",
		Long: `import reads Magnum's database read-only (URL is magnum.conf's [database]
connection: mysql+pymysql://USER:PASSWORD@HOST/magnum, postgresql://...,
sqlite:////path) and writes its cluster templates, clusters, nodegroups and
quotas into the cluster repository, one commit per project. A second run
writes only what changed. Clusters are read-only records (keel does not
manage them) unless --adopt finds the Cluster API objects a Cluster API
driver made for them on the management cluster (--kubeconfig): keel then
takes them over as they are, on their ClusterClass, so that no machine is
replaced, and renders them in one more commit; --plan says, per cluster,
"no machine change" or what would change (a cluster whose adoption changes
what runs is adopted only with --adopt-changes). The clusters' CAs are
imported encrypted for keel serve's age identity (--data-dir, or
$KEEL_AGE_KEY), from the store of magnum.conf's [certificates]
cert_manager_type: x509keypair (Magnum's database), local (the conductor's
storage_path: --magnum-cert-dir) or barbican (read with --os-cloud, a
clouds.yaml cloud that is Magnum's service user, as magnum.conf's
[keystone_auth], or an admin of its project: Barbican lets no one else
read them). Clusters whose CAs are in a store not given are imported
without them (--plan says so); a CA that cannot be read refuses the import.
--plan prints what would be written and what cannot be imported,
and writes nothing. Any object keel cannot import refuses the whole import.
See docs/migration.md.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runImport(cmd, o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.dbURL, "magnum-db", "", "Magnum's database URL, as magnum.conf's [database] connection holds it")
	f.BoolVar(&o.plan, "plan", false, "print what would be imported and what cannot be, and write nothing")
	f.StringVar(&o.repoDir, "repo", "./.keel/repo.git", "the cluster repository (keel serve's DATA-DIR/repo.git, a bare Git repository)")
	f.StringVar(&o.dataDir, "data-dir", "", "keel serve's data folder, whose age identity the clusters' CA keys are encrypted for (default: the folder holding --repo)")
	f.BoolVar(&o.adopt, "adopt", false, "adopt the clusters a Cluster API driver made (magnum-cluster-api) with their Cluster API objects, found through --kubeconfig, instead of importing them as read-only records")
	f.BoolVar(&o.adoptChanges, "adopt-changes", false, "with --adopt, adopt a cluster even when keel's first apply would change what runs (listed by --plan)")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "with --adopt, the kubeconfig of the management cluster the driver's Cluster API objects are on (read only)")
	f.StringVar(&o.certDir, "magnum-cert-dir", "", "Magnum's local certificate store (magnum.conf [certificates] storage_path, default /var/lib/magnum/certificates), for cert_manager_type local")
	f.StringVar(&o.osCloud, "os-cloud", os.Getenv("OS_CLOUD"), "the clouds.yaml cloud that reads the CAs from Barbican, for cert_manager_type barbican: Magnum's service user ([keystone_auth]) or an admin of its project")
	_ = cmd.MarkFlagRequired("magnum-db")
	return cmd
}

// runImport reads Magnum (every flag checked first, before anything is
// read), adopts what --adopt finds, then plans, or writes the commits.
func runImport(cmd *cobra.Command, o importOptions) error {
	finder, err := adoptionFinder(o.adopt, o.kubeconfig, o.adoptChanges)
	if err != nil {
		return err
	}
	src, err := magnumimport.ParseURL(o.dbURL)
	if err != nil {
		return err
	}
	certs, err := certStores(o.certDir, o.osCloud)
	if err != nil {
		return err
	}
	store, err := openStore(o.repoDir)
	if err != nil {
		return fmt.Errorf("--repo %s: %w", o.repoDir, err)
	}
	m, err := magnumimport.ReadWith(cmd.Context(), src, certs)
	if err == nil && finder != nil {
		err = m.Adopt(cmd.Context(), finder, magnumimport.AdoptOptions{Changes: o.adoptChanges})
	}
	if err != nil {
		return err
	}
	p, err := magnumimport.PlanOn(store, m)
	if err != nil {
		return err
	}
	if o.plan {
		if err := p.Print(cmd.OutOrStdout()); err != nil || len(p.Refused) == 0 {
			return err
		}
		return fmt.Errorf("%d objects cannot be imported (listed above)", len(p.Refused))
	}
	if m.Keyring, err = importKeyring(o.repoDir, o.dataDir); err != nil {
		return err
	}
	return writeImport(cmd, store, m, p)
}

// writeImport writes the import's commits, then the one rendering the
// adopted clusters, and says which it made.
func writeImport(cmd *cobra.Command, store *gitstore.Store, m *magnumimport.Magnum, p *magnumimport.Plan) error {
	out := cmd.OutOrStdout()
	made, err := magnumimport.Apply(cmd.Context(), store, m)
	for _, h := range made {
		fmt.Fprintf(out, "committed %s\n", h)
	}
	if errors.Is(err, magnumimport.ErrRefused) {
		_ = p.Print(cmd.ErrOrStderr())
	}
	if err != nil {
		return err
	}
	dirs, h, err := repo.CommitAdopted(cmd.Context(), store, m.Keyring)
	if h != "" {
		fmt.Fprintf(out, "committed %s (rendered %d adopted clusters)\n", h, len(dirs))
		made = append(made, h)
	}
	if err == nil {
		fmt.Fprintf(out, "%d commits from %s\n", len(made), m.Source.Display)
	}
	return err
}

// adoptionFinder checks the adoption flags and, with --adopt, reads the
// management cluster's kubeconfig (nil without --adopt).
func adoptionFinder(adopt bool, kubeconfig string, changes bool) (magnumimport.Finder, error) {
	switch {
	case !adopt && (kubeconfig != "" || changes):
		return nil, errors.New("--kubeconfig and --adopt-changes are for --adopt")
	case !adopt:
		return nil, nil
	case kubeconfig == "":
		return nil, errors.New("--adopt needs --kubeconfig: the management cluster the driver's Cluster API objects are on")
	}
	return newClusterFinder(kubeconfig)
}

// certStores are the certificate stores the flags name. The cloud is
// read now (a name clouds.yaml lacks stops the import before anything
// is read) and authenticated only when a cluster's CAs are in Barbican.
func certStores(certDir, osCloud string) (magnumimport.CertStores, error) {
	s := magnumimport.CertStores{LocalDir: certDir}
	if osCloud == "" {
		return s, nil
	}
	var err error
	if s.Barbican, err = magnumimport.BarbicanFromCloud(clouds.WithCloudName(osCloud)); err != nil {
		return s, fmt.Errorf("--os-cloud %s: %w", osCloud, err)
	}
	return s, nil
}

// importKeyring is keel serve's keyring, to encrypt the imported CA keys
// for: from $KEEL_AGE_KEY, else DATA-DIR/age.key. It is never created
// here (keys encrypted for a new identity would be unreadable to keel
// serve); without one, nil: an import with CAs to write then stops with
// magnumimport.ErrNoKeyring before writing anything.
func importKeyring(repoDir, dataDir string) (*secrets.Keyring, error) {
	if dataDir == "" {
		dataDir = filepath.Dir(filepath.Clean(repoDir))
	}
	if os.Getenv(secrets.IdentityEnv) == "" {
		if _, err := os.Stat(filepath.Join(dataDir, secrets.IdentityFile)); errors.Is(err, fs.ErrNotExist) {
			return nil, nil
		}
	}
	return secrets.LoadKeyring(dataDir)
}
