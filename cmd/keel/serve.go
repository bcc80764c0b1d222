package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"os"
	"os/signal"
	"slices"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/gophercloud/gophercloud/v2"
	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/forge/gitea"
	"github.com/openkeel/keel/forge/github"
	"github.com/openkeel/keel/forge/gitlab"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/policy"
	"github.com/openkeel/keel/simulator/workload"
)

type serveOptions struct {
	dataDir, listen, kubeconfig, database string
	auth, keystoneURL                     string
	defaultProject                        string
	noauthAdmin                           bool
	simulateSet                           bool // --simulate-infrastructure given (removed)
	clusterAPI                            string
	workloadAPIServers                    string
	clusterAPISet, embedded               bool // --cluster-api given; no existing management cluster
	simulateStep                          time.Duration
	maxClusters                           int64
	logLevel                              string
	leaderElect                           bool
	leaseDuration, renewDeadline          time.Duration
	retryPeriod                           time.Duration
	policyFile                            string
	lookups, region                       string

	// The Git server the repository mirrors (gitRemoteFlags).
	gitRemote         string
	reviewForge       string
	gitRemoteInterval time.Duration

	// Keystone and TLS to OpenStack (keystoneFlags).
	keystoneCacheTTL, keystoneTimeout time.Duration
	osCACert                          string
	osInterface                       string

	notifications server.NotificationOptions
	profiler      string
	workers       int
}

func serveCmd() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Magnum API and reconcile the cluster repository",
		Long: `Serve the Magnum container-infra API v1, follow the cluster repository and apply it
to the management cluster.

In a Pod (KUBERNETES_SERVICE_HOST set) without --kubeconfig, the management
cluster is the one keel runs on, with its ServiceAccount (deploy/).

Elsewhere, without --kubeconfig keel runs the embedded default: it starts its own management
cluster (a real kube-apiserver and etcd, built on first use, and kube-controller-manager's
garbage collector), installs the Cluster API and CAPO CRDs, runs Cluster API's own
controllers, and simulates what cannot run here
(OpenStack servers, the workload clusters' kubelets) so that clusters progress.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			embedded := managementSource(o.kubeconfig, os.Getenv) == sourceEmbedded
			o.embedded, o.clusterAPISet = embedded, cmd.Flags().Changed("cluster-api")
			o.simulateSet = cmd.Flags().Changed("simulate-infrastructure")
			if !cmd.Flags().Changed("auth") && !embedded {
				o.auth = "keystone"
			}
			if !cmd.Flags().Changed("openstack-lookups") && !embedded {
				o.lookups = "real"
			}
			return serve(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", "./.keel", "folder of the Git repository (repo.git), the SQLite read model and the embedded management cluster")
	f.StringVar(&o.listen, "listen", "127.0.0.1:9511", "address of the Magnum API")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of an existing management cluster (default: in a Pod, the cluster it runs on; elsewhere start an embedded one)")
	f.StringVar(&o.database, "database", "", "read model: a postgres:// URL, or a SQLite file (default DATA-DIR/keel.db)")
	f.StringVar(&o.auth, "auth", "noauth", "authentication: noauth (trust X-Project-Id etc.) or keystone")
	f.StringVar(&o.keystoneURL, "keystone-url", os.Getenv("OS_AUTH_URL"), "Keystone v3 URL (with --auth keystone); keel's service user comes from OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, OS_USER_DOMAIN_NAME, OS_PROJECT_DOMAIN_NAME")
	o.keystoneFlags(f)
	f.StringVar(&o.defaultProject, "default-project", "default", "project of noauth requests without X-Project-Id")
	f.BoolVar(&o.noauthAdmin, "noauth-admin", true, "noauth requests without X-Roles are admin")
	// Removed with the simulator that played Cluster API (issue 11); kept
	// so that scripts passing it get an error saying what to do instead.
	f.Bool("simulate-infrastructure", false, "removed: the embedded management cluster always simulates OpenStack; a management cluster given by --kubeconfig runs its own Cluster API and CAPO")
	_ = f.MarkHidden("simulate-infrastructure")
	f.DurationVar(&o.simulateStep, "simulate-step", 2*time.Second, "with the embedded management cluster: how long each simulated OpenStack operation takes")
	f.StringVar(&o.clusterAPI, "cluster-api", "real", "with the embedded management cluster: real, the only value (Cluster API v1.14's own controllers and webhooks run in keel; only OpenStack servers and the workload clusters are simulated); see docs/simulator.md")
	f.StringVar(&o.workloadAPIServers, "workload-apiservers", string(workload.LightAPIServers), "with the embedded management cluster: what serves each simulated workload cluster's Kubernetes API: light (keel's in-process API server, kilobytes per cluster: fleets) or real (a kube-apiserver process per cluster, about 230 MB each); see docs/simulator.md")
	f.Int64Var(&o.maxClusters, "max-clusters-per-project", 20, "Magnum's default cluster quota")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&o.policyFile, "policy-file", "", "policy overrides (YAML or JSON, oslo.policy rule syntax) on top of Magnum's defaults")
	f.StringVar(&o.lookups, "openstack-lookups", "given", "how the API resolves images, flavors, networks, keypairs and volume types: given (as written, no lookups; default in embedded mode) or real (Glance, Nova, Neutron and Cinder, asked with the caller's token and catalog under --auth keystone, else with keel's service user from OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, OS_USER_DOMAIN_NAME, OS_PROJECT_DOMAIN_NAME; default with --kubeconfig)")
	f.StringVar(&o.region, "os-region", os.Getenv("OS_REGION_NAME"), "OpenStack region of the services looked up (with --openstack-lookups real) and of every cluster's clouds.yaml and cloud.conf")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "reconcile only while holding the keel-reconciler Lease (several replicas on one PostgreSQL read model)")
	f.DurationVar(&o.leaseDuration, "leader-elect-lease-duration", 15*time.Second, "with --leader-elect: how long a Lease not renewed stays taken (a killed leader is replaced about this long after its last renewal)")
	f.DurationVar(&o.renewDeadline, "leader-elect-renew-deadline", 10*time.Second, "with --leader-elect: how long the leader keeps trying to renew before it stops reconciling")
	f.DurationVar(&o.retryPeriod, "leader-elect-retry-period", 2*time.Second, "with --leader-elect: how often the Lease is renewed, or tried for")
	f.IntVar(&o.workers, "reconcile-workers", 4, "how many repository folders (clusters, ClusterClasses) the reconciler applies at once")
	f.StringVar(&o.profiler, "profiler-address", "", "serve Go's profiles (/debug/pprof/) on this address, e.g. 127.0.0.1:6060 (off when empty; never on the API's address)")
	o.gitRemoteFlags(f)
	notificationFlags(f, &o.notifications)
	return cmd
}

func serve(parent context.Context, o *serveOptions) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	ctrllog.SetLogger(logr.FromSlogHandler(log.Handler()))

	// Checked before anything starts: a bad CA bundle is a startup error.
	hc, err := o.httpClient()
	if err != nil {
		return err
	}

	switch o.clusterAPI {
	case "simulated":
		return errors.New("--cluster-api=simulated was removed (keel's own model of Cluster API proved nothing about Cluster API): use --cluster-api=real, the default, which runs Cluster API's own controllers with simulated OpenStack servers and workload clusters; see docs/simulator.md")
	case "real":
		if !o.embedded && o.clusterAPISet {
			return errors.New("--cluster-api=real runs Cluster API in keel's embedded management cluster; with --kubeconfig, install Cluster API and CAPO there (clusterctl init)")
		}
	default:
		return fmt.Errorf("--cluster-api: %q is not real, the only value", o.clusterAPI)
	}
	if o.simulateSet {
		return errors.New("--simulate-infrastructure was removed with the simulator that played Cluster API: the embedded management cluster always runs Cluster API's own controllers with simulated OpenStack; a management cluster given by --kubeconfig runs its own Cluster API and CAPO (clusterctl init); see docs/simulator.md")
	}

	apiServers, err := workload.ParseAPIServers(o.workloadAPIServers)
	if err != nil {
		return fmt.Errorf("--workload-apiservers: %w", err)
	}

	// Replicas see what the leader's observer writes only through one
	// PostgreSQL read model; one replica on SQLite (deploy's dev overlay)
	// is fine.
	if o.leaderElect && !strings.HasPrefix(o.database, "postgres") {
		log.Warn("--leader-elect with a SQLite read model: run one replica only; a second would show no statuses, since only the leader's observer writes them (use --database postgres://… for several)")
	}
	ctx, stop := signal.NotifyContext(parent, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := serveProfiler(ctx, o.profiler, log); err != nil {
		return fmt.Errorf("--profiler-address: %w", err)
	}

	so := server.Options{
		DataDir: o.dataDir, Listen: o.listen, Database: o.database, AuthURL: o.keystoneURL,
		SimulateStep: o.simulateStep, MaxClustersPerProject: o.maxClusters, Log: log,
		WorkloadAPIServers: apiServers,
		Reconciler:         reconciler.Options{Workers: o.workers},
		// An existing management cluster (--kubeconfig) runs its own.
		RealClusterAPI: o.clusterAPI == "real" && o.embedded,
		LeaderElection: o.leaderElect,
		LeaseDuration:  o.leaseDuration, RenewDeadline: o.renewDeadline, RetryPeriod: o.retryPeriod,
	}
	if so.Cloud, err = o.cloudConfig(); err != nil {
		return err
	}
	if o.auth == "noauth" {
		// No token to make a cluster its own application credential with:
		// clouds.yaml and cloud.conf get named placeholders.
		msg := "clusters get placeholder OpenStack credentials (--auth noauth makes no application credential per cluster); CAPO and the cloud controller manager of a real cloud cannot authenticate with them (docs/secrets.md)"
		if o.embedded {
			log.Info(msg + "; fine here: OpenStack is simulated")
		} else {
			log.Warn(msg)
		}
	}
	if o.workers < 1 {
		return fmt.Errorf("--reconcile-workers: %d: 1 or more folders at once are allowed", o.workers)
	}
	if err := server.ValidateLeaseTiming(so); err != nil {
		return fmt.Errorf("--leader-elect-*: %w", err)
	}
	if err := notificationOptions(o.notifications, &so); err != nil {
		return err
	}
	if err := o.gitRemoteOptions(&so); err != nil {
		return err
	}
	switch managementSource(o.kubeconfig, os.Getenv) {
	case sourceKubeconfig:
		cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
		if err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
		cfg.QPS, cfg.Burst = 100, 200
		so.Config = cfg
	case sourceInCluster:
		cfg, err := rest.InClusterConfig()
		if err != nil {
			return fmt.Errorf("in-cluster configuration (KUBERNETES_SERVICE_HOST is set, --kubeconfig is not): %w", err)
		}
		cfg.QPS, cfg.Burst = 100, 200
		so.Config = cfg
	}
	if o.policyFile != "" {
		p, err := policy.Load(o.policyFile)
		if err != nil {
			return fmt.Errorf("--policy-file: %w", err)
		}
		so.Policy = p
	}
	switch o.lookups {
	case "given":
		so.OpenStack = openstack.Given{}
	case "real":
		if o.keystoneURL == "" {
			return errors.New("--openstack-lookups real needs --keystone-url (or OS_AUTH_URL)")
		}
		so.OpenStack = o.openstackClient(hc)
	default:
		return fmt.Errorf("--openstack-lookups must be given or real, not %q", o.lookups)
	}
	switch o.auth {
	case "noauth":
		so.Auth = auth.NoAuth{DefaultProject: o.defaultProject, Admin: o.noauthAdmin}
	case "keystone":
		if o.keystoneURL == "" {
			return errors.New("--auth keystone needs --keystone-url (or OS_AUTH_URL)")
		}
		k, err := o.keystoneAuth(hc)
		if err != nil {
			return err
		}
		so.Auth = k
	default:
		return fmt.Errorf("--auth must be noauth or keystone, not %q", o.auth)
	}
	in, err := server.Start(ctx, so)
	if err != nil {
		if in != nil {
			_ = in.Stop()
		}
		return err
	}
	fmt.Printf("keel: ready on %s\n", in.URL)
	err = in.Wait(ctx)
	if err != nil {
		log.Error("stopping", "err", err)
	}
	fmt.Fprintln(os.Stderr, "keel: shutting down")
	if serr := in.Stop(); serr != nil && err == nil {
		err = serr
	}
	return err
}

// configSource is where the management cluster comes from.
type configSource int

const (
	sourceEmbedded   configSource = iota // start one in DATA-DIR (make run)
	sourceKubeconfig                     // --kubeconfig
	sourceInCluster                      // the Pod's ServiceAccount (deploy/)
)

// managementSource picks the management cluster: --kubeconfig wins; inside
// a Pod (KUBERNETES_SERVICE_HOST, set by the kubelet) the cluster keel runs
// on; else the embedded one, which must never start by accident in a Pod.
func managementSource(kubeconfig string, getenv func(string) string) configSource {
	switch {
	case kubeconfig != "":
		return sourceKubeconfig
	case getenv("KUBERNETES_SERVICE_HOST") != "":
		return sourceInCluster
	}
	return sourceEmbedded
}

// serviceAuth is keel's service user, from the OS_* environment.
func serviceAuth() gophercloud.AuthOptions {
	return gophercloud.AuthOptions{
		Username: os.Getenv("OS_USERNAME"), Password: os.Getenv("OS_PASSWORD"),
		DomainName: firstEnv("OS_USER_DOMAIN_NAME", "OS_DOMAIN_NAME"),
		Scope: &gophercloud.AuthScope{ProjectName: os.Getenv("OS_PROJECT_NAME"),
			DomainName: firstEnv("OS_PROJECT_DOMAIN_NAME", "OS_DOMAIN_NAME")},
	}
}

// keystoneFlags are the flags of token validation and of TLS to OpenStack.
func (o *serveOptions) keystoneFlags(f *pflag.FlagSet) {
	f.DurationVar(&o.keystoneCacheTTL, "keystone-token-cache-ttl", 5*time.Minute, "how long a token's validation is reused (never beyond the token's expires_at); 0 disables the cache")
	f.DurationVar(&o.keystoneTimeout, "keystone-timeout", 10*time.Second, "bound on each token validation with Keystone, keel's service user authentication included")
	f.StringVar(&o.osCACert, "os-cacert", os.Getenv("OS_CACERT"), "PEM CA bundle trusted (on top of the system's) for TLS to Keystone and the OpenStack services: token validation, --openstack-lookups real, and every cluster's clouds.yaml (CAPO) and cloud.conf (cloud controller manager, CSI)")
	f.StringVar(&o.osInterface, "os-interface", firstEnv("OS_INTERFACE", "OS_ENDPOINT_TYPE"), "OpenStack endpoints the clusters' CAPO and cloud controller manager use: public (default), internal or admin")
}

// httpClient is the HTTP client of every exchange with OpenStack: nil
// (Go's default) without --os-cacert.
func (o *serveOptions) httpClient() (*http.Client, error) {
	hc, err := openstack.HTTPClientWithCA(o.osCACert)
	if err != nil {
		return nil, fmt.Errorf("--os-cacert (default $OS_CACERT): %w", err)
	}
	return hc, nil
}

// cloudConfig is what every cluster's clouds.yaml and cloud.conf say about
// the cloud besides the credential: region, endpoints, private CA.
func (o *serveOptions) cloudConfig() (intent.CloudConfig, error) {
	c := intent.CloudConfig{RegionName: o.region, Interface: strings.TrimSuffix(o.osInterface, "URL")}
	switch c.Interface {
	case "", "public", "internal", "admin":
	default:
		return c, fmt.Errorf("--os-interface (default $OS_INTERFACE): %q is not public, internal or admin", o.osInterface)
	}
	if o.osCACert != "" {
		b, err := os.ReadFile(o.osCACert)
		if err != nil {
			return c, fmt.Errorf("--os-cacert (default $OS_CACERT): %w", err)
		}
		c.CACert = string(b)
	}
	return c, nil
}

// openstackClient is the lookups' client of --openstack-lookups real.
func (o *serveOptions) openstackClient(hc *http.Client) *openstack.Client {
	auth := serviceAuth()
	auth.IdentityEndpoint = o.keystoneURL
	return openstack.New(openstack.Options{Auth: auth, Region: o.region, HTTPClient: hc})
}

// keystoneAuth is the token validator of --auth keystone.
func (o *serveOptions) keystoneAuth(hc *http.Client) (*auth.Keystone, error) {
	if o.keystoneCacheTTL < 0 {
		return nil, fmt.Errorf("--keystone-token-cache-ttl must not be negative (0 disables the cache), not %s", o.keystoneCacheTTL)
	}
	if o.keystoneTimeout <= 0 {
		return nil, fmt.Errorf("--keystone-timeout must be positive, not %s", o.keystoneTimeout)
	}
	ttl := o.keystoneCacheTTL
	if ttl == 0 {
		ttl = -1 // Keystone.CacheTTL: 0 is the default, negative is off
	}
	// The token's catalog is what real lookups run as the caller with.
	return &auth.Keystone{AuthURL: o.keystoneURL, Service: serviceAuth(),
		CacheTTL: ttl, Timeout: o.keystoneTimeout, HTTPClient: hc, NoCatalog: o.lookups != "real"}, nil
}

// gitRemoteFlags are the flags of a Git server as the source of truth
// (docs/repository.md, "Using a Git server").
func (o *serveOptions) gitRemoteFlags(f *pflag.FlagSet) {
	f.StringVar(&o.gitRemote, "git-remote", "", "Git server whose main branch is the source of truth (https://, ssh://, git@host:path, file:// or a path); DATA-DIR/repo.git becomes its mirror. Credentials from KEEL_GIT_USERNAME/KEEL_GIT_PASSWORD (HTTPS) or KEEL_GIT_SSH_KEY (SSH); POST /hooks/git is served when KEEL_GIT_WEBHOOK_SECRET is set")
	f.DurationVar(&o.gitRemoteInterval, "git-remote-interval", server.DefaultGitRemoteInterval, "how often the --git-remote is fetched")
	f.StringVar(&o.reviewForge, "review-forge", "", "review mode: the forge of --git-remote that opens pull requests for the changes site.cue's site.review covers (gitea: Gitea or Forgejo; github: GitHub or GitHub Enterprise Server; gitlab: GitLab); the token from KEEL_FORGE_TOKEN. With KEEL_GIT_WEBHOOK_SECRET, the pull requests people open get a keel plan comment and a keel/vet status through POST /hooks/git")
}

func (o *serveOptions) gitRemoteOptions(so *server.Options) error {
	if o.gitRemote == "" {
		return nil
	}
	if o.gitRemoteInterval <= 0 {
		return fmt.Errorf("--git-remote-interval must be positive, not %s", o.gitRemoteInterval)
	}
	so.GitRemote, so.GitRemoteInterval = o.gitRemote, o.gitRemoteInterval
	so.GitWebhookSecret = os.Getenv("KEEL_GIT_WEBHOOK_SECRET")
	if o.reviewForge == "" {
		return nil
	}
	open, ok := forges[o.reviewForge]
	if !ok {
		return fmt.Errorf("--review-forge must be one of %s, not %q", strings.Join(forgeNames(), ", "), o.reviewForge)
	}
	token := os.Getenv("KEEL_FORGE_TOKEN")
	if token == "" {
		return errors.New("--review-forge needs the forge's token in KEEL_FORGE_TOKEN")
	}
	f, err := open(o.gitRemote, token)
	if err != nil {
		return fmt.Errorf("--review-forge %s: %w", o.reviewForge, err)
	}
	so.Forge = f
	return nil
}

// forges are the adapters --review-forge names: each reaches the
// repository of the --git-remote URL with a token.
var forges = map[string]func(remote, token string) (forge.Forge, error){
	"gitea":  func(r, t string) (forge.Forge, error) { return gitea.FromRepoURL(r, t) },
	"github": func(r, t string) (forge.Forge, error) { return github.FromRepoURL(r, t) },
	"gitlab": func(r, t string) (forge.Forge, error) { return gitlab.FromRepoURL(r, t) },
}

func forgeNames() []string { return slices.Sorted(maps.Keys(forges)) }

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}
