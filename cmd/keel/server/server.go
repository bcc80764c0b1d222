// Package server assembles a running keel: the Git store, the read model,
// the management cluster (embedded or given), the reconciler, the observer,
// Cluster API with simulated OpenStack (embedded only) and the Magnum API.
// `keel serve` and the end-to-end tests start keel through it.
package server

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes"
	typedcorev1 "k8s.io/client-go/kubernetes/typed/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/record"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/forge"
	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/internal/version"
	"github.com/openkeel/keel/mgmtcluster"
	"github.com/openkeel/keel/mgmtcluster/binaries"
	"github.com/openkeel/keel/mgmtcluster/clusterapi"
	"github.com/openkeel/keel/observer"
	"github.com/openkeel/keel/readmodel"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi"
	"github.com/openkeel/keel/restapi/auth"
	"github.com/openkeel/keel/restapi/policy"
	"github.com/openkeel/keel/review"
	"github.com/openkeel/keel/simulator/capo"
	"github.com/openkeel/keel/simulator/workload"
)

// Options configure a keel instance.
type Options struct {
	DataDir string
	Listen  string
	// Config is the management cluster; nil starts the embedded one in
	// DataDir/etcd and writes DataDir/management.kubeconfig.
	Config *rest.Config
	// Database is a postgres:// URL or a SQLite file; default DataDir/keel.db.
	Database string
	Auth     auth.Authenticator
	AuthURL  string
	// Policy overrides Magnum's default policies (policy.Load).
	Policy *policy.Policy
	// SimulateStep is how long each simulated OpenStack operation takes
	// (RealClusterAPI).
	SimulateStep time.Duration
	// WorkloadAPIServers is what serves the simulated workload clusters'
	// API (RealClusterAPI): light (the default) or real.
	WorkloadAPIServers workload.APIServers
	// RealClusterAPI (embedded management cluster only) runs Cluster API's
	// own controllers and webhooks in keel, with simulated OpenStack and
	// workload clusters (simulator/capo, simulator/workload). Without it
	// keel only applies: the management cluster runs Cluster API itself.
	RealClusterAPI bool
	// Hypervisor (with RealClusterAPI) is the real-OpenStack world: a real
	// CAPO runs next to keel (mgmtcluster/capo, started by the caller on
	// Instance.KubeConfig) and creates the OpenStack resources, and the
	// simulator plays only the hypervisor: kubelets for the servers CAPO
	// made and workload API servers where CAPO says the control plane is
	// (docs/simulator.md). Off: the simulated CAPO plays OpenStack too.
	Hypervisor bool
	// MaxClustersPerProject is the default cluster quota.
	MaxClustersPerProject int64
	// Reconciler tunes the reconciler (poll, resync, backoff).
	Reconciler reconciler.Options
	// LeaderElection makes this instance reconcile (and simulate) only
	// while it holds the keel-reconciler Lease, so that several replicas
	// can serve the API with one active reconciler.
	LeaderElection bool
	// LeaseDuration, RenewDeadline and RetryPeriod tune the election
	// (zero: 15 s, 10 s and 2 s, client-go's usual values). A killed
	// leader is replaced about LeaseDuration after its last renewal.
	LeaseDuration, RenewDeadline, RetryPeriod time.Duration
	// Cloud is rendered into each cluster's clouds.yaml (the credential
	// CAPO uses). AuthURL defaults to Options.AuthURL; the application
	// credential to clearly named placeholders (docs/secrets.md).
	Cloud intent.CloudConfig
	// OpenStack resolves the images, flavors, networks, keypairs and volume
	// types API changes reference (recorded as the clusters' facts); nil
	// is openstack.Given{}, which looks nothing up. (Cloud above is the
	// credential rendered for CAPO, hence the other name.)
	OpenStack openstack.Cloud
	// GitRemote is the Git server whose main is the source of truth (any
	// URL go-git supports); DataDir/repo.git is then its working mirror.
	// Credentials come from the environment (gitstore.AuthFromEnv).
	GitRemote string
	// GitRemoteInterval is how often the remote is fetched (default
	// DefaultGitRemoteInterval).
	GitRemoteInterval time.Duration
	// GitWebhookSecret enables POST /hooks/git (with GitRemote), verified
	// with this shared secret; empty: the endpoint is not served.
	GitWebhookSecret string
	// Forge, with GitRemote, is review mode's forge: the changes site.cue's
	// site.review covers become pull requests on it (review.Mode).
	Forge forge.Forge
	// Notifications, when set with a URL, sends Magnum's notifications
	// (only the leader sends, with LeaderElection).
	Notifications *NotificationOptions
	Log           *slog.Logger
	// Out receives the user-facing progress lines.
	Out io.Writer
}

// Instance is a running keel.
type Instance struct {
	URL    string
	Store  *gitstore.Store
	DB     *readmodel.DB
	Config *rest.Config
	Client client.Client

	cancel context.CancelFunc
	wg     sync.WaitGroup
	errc   chan error
	srv    *http.Server
	env    *mgmtcluster.Env
	once   sync.Once

	stopEvents func()
	err        error
}

// Start starts keel and returns once the API answers.
func Start(parent context.Context, o Options) (_ *Instance, err error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Out == nil {
		o.Out = os.Stderr
	}
	if o.Listen == "" {
		o.Listen = "127.0.0.1:9511"
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return nil, err
	}
	ctx, cancel := context.WithCancel(parent)
	in := &Instance{cancel: cancel, errc: make(chan error, 8)}
	defer func() {
		if err != nil {
			_ = in.Stop() // New's own error is the one to report
		}
	}()
	var remote *gitstore.Remote
	if o.GitRemote != "" {
		auth, err := gitstore.AuthFromEnv(o.GitRemote)
		if err != nil {
			return in, err
		}
		remote = &gitstore.Remote{URL: o.GitRemote, Auth: auth}
		fmt.Fprintf(o.Out, "keel: the cluster repository is %s (mirrored in %s)\n", gitstore.RedactURL(o.GitRemote), filepath.Join(o.DataDir, "repo.git"))
	}
	if in.Store, err = gitstore.OpenRemote(ctx, filepath.Join(o.DataDir, "repo.git"), remote); err != nil {
		return in, err
	}
	// keel's age identity (DATA-DIR/age.key, created on first start):
	// encrypts the secrets committed to Git, decrypts them to apply.
	keyring, err := secrets.LoadKeyring(o.DataDir)
	if err != nil {
		return in, err
	}
	cloud := o.Cloud
	if cloud.AuthURL == "" {
		cloud.AuthURL = o.AuthURL
	}
	dsn := o.Database
	if dsn == "" {
		dsn = filepath.Join(o.DataDir, "keel.db")
	}
	if in.DB, err = readmodel.Open(ctx, dsn); err != nil {
		return in, err
	}
	if err := in.DB.Sync(ctx, in.Store); err != nil {
		return in, fmt.Errorf("projecting the repository into the read model: %w", err)
	}

	in.Config = o.Config
	if in.Config == nil {
		if in.env, err = startEmbedded(ctx, o.DataDir, o.RealClusterAPI, o.Out); err != nil {
			return in, err
		}
		in.Config = in.env.Config
	}
	if in.Client, err = client.New(in.Config, client.Options{Scheme: kube.NewScheme()}); err != nil {
		return in, err
	}

	className, err := compiler.ClusterClassName(version.Version)
	if err != nil {
		return in, err
	}
	var rv *review.Mode
	var reviewer restapi.Reviewer // nil, not a nil *review.Mode, without review mode
	if o.Forge != nil && remote != nil {
		rv = review.New(o.Forge, in.Store, o.Log.With("component", "review"))
		reviewer = rv
	}
	api := restapi.New(restapi.Config{
		Store: in.Store, DB: in.DB, Auth: o.Auth, AuthURL: o.AuthURL, Log: o.Log,
		MaxClustersPerProject: o.MaxClustersPerProject, ClusterClass: className,
		Policy:  o.Policy,
		Secrets: &repo.Secrets{Keyring: keyring, Cloud: cloud},
		Cloud:   o.OpenStack,
		Review:  reviewer,
	})
	ro := o.Reconciler
	ro.Log = o.Log.With("component", "reconciler")
	ro.Keyring = keyring
	// The clusters' own application credentials (made with their creators'
	// tokens) are deleted by keel's service user once a cluster is gone.
	if d, ok := o.OpenStack.(reconciler.CredentialDeleter); ok && ro.Credentials == nil {
		ro.Credentials = d
	}
	// So are their Nova server groups, made at create (as the caller).
	if d, ok := o.OpenStack.(reconciler.ServerGroupDeleter); ok && ro.ServerGroups == nil {
		ro.ServerGroups = d
	}
	// The load balancers their cloud controllers made go first, before
	// CAPO deletes the network they are on.
	if d, ok := o.OpenStack.(reconciler.LoadBalancerDeleter); ok && ro.LoadBalancers == nil {
		ro.LoadBalancers = d
	}
	cs, err := kubernetes.NewForConfig(in.Config)
	if err != nil {
		return in, err
	}
	broadcaster := record.NewBroadcaster()
	broadcaster.StartRecordingToSink(&typedcorev1.EventSinkImpl{Interface: cs.CoreV1().Events("")})
	in.stopEvents = broadcaster.Shutdown
	ro.Recorder = broadcaster.NewRecorder(kube.NewScheme(), corev1.EventSource{Component: "keel"})
	rec, err := reconciler.New(in.Store, in.Client, in.DB, ro)
	if err != nil {
		return in, err
	}
	leading, names := []func(context.Context) error{rec.Run}, []string{"reconciler"}
	// The observer is the read model's only writer of observations, so it
	// runs where the reconciler does: with several replicas on one
	// PostgreSQL, one replica writes them (never two disagreeing ones) and
	// asks OpenStack what CAPO does not say once, not once per replica.
	leading, names = append(leading, func(ctx context.Context) error { return runObserver(ctx, in, o) }), append(names, "observer")
	// CA rotations move from phase to phase as the observer sees each one
	// rolled out: one writer of those commits, where the observer runs.
	leading, names = append(leading, func(ctx context.Context) error { return api.RunCARotations(ctx, caRotationInterval) }), append(names, "ca rotations")
	in.run(ctx, "read model", func(ctx context.Context) error { return followRepository(ctx, in.DB, in.Store, o.Log) })
	in.run(ctx, "heartbeat", func(ctx context.Context) error { return heartbeat(ctx, in.DB, o.Log) })
	syncNow := make(chan struct{}, 1)
	var pulls *review.PullChecks // review mode: checks of the pull requests people open
	if remote != nil {
		interval := o.GitRemoteInterval
		if interval <= 0 {
			interval = DefaultGitRemoteInterval
		}
		in.run(ctx, "git remote", func(ctx context.Context) error {
			return followRemote(ctx, in.Store, interval, syncNow, o.Log.With("component", "git-remote"))
		})
		if rv != nil {
			pulls = review.NewPullChecks(o.Forge, in.Store, o.Log.With("component", "review"))
			pulls.Pending = rv.Pending
			in.run(ctx, "pull request checks", pulls.Run)
			in.run(ctx, "review", func(ctx context.Context) error {
				return followReviews(ctx, rv, interval, syncNow, o.Log.With("component", "review"))
			})
		}
	}
	if o.RealClusterAPI {
		p, err := in.startClusterAPI(ctx, o)
		if err != nil {
			return in, err
		}
		leading, names = append(leading, p.Start), append(names, "simulated capo")
	}
	send, err := in.notificationSender(o)
	if err != nil {
		return in, err
	}
	if send != nil {
		leading, names = append(leading, send), append(names, "notifications")
	}
	if o.LeaderElection {
		in.run(ctx, "leader election", func(ctx context.Context) error { return leaderElect(ctx, cs, o.Log, in, leaseTiming(o), leading) })
	} else {
		for i, fn := range leading {
			in.run(ctx, names[i], fn)
		}
	}

	ln, err := net.Listen("tcp", o.Listen)
	if err != nil {
		return in, err
	}
	mux := http.NewServeMux()
	mux.Handle("/metrics", promhttp.HandlerFor(ctrlmetrics.Registry, promhttp.HandlerOpts{}))
	// Probes: outside /v1 and without authentication, as kubelet calls them.
	mux.Handle("/healthz", healthz())
	mux.Handle("/readyz", readyz(in.readinessChecks(cs)))
	if remote != nil && o.GitWebhookSecret != "" {
		// Outside /v1 and Keystone: the shared secret authenticates it.
		mux.Handle("/hooks/git", review.Webhook(o.GitWebhookSecret, syncNow, pulls))
	}
	mux.Handle("/", api)
	in.srv = newHTTPServer(mux)
	in.run(ctx, "api", func(context.Context) error {
		if err := in.srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	in.URL = "http://" + ln.Addr().String()
	if err := waitReady(ctx, in.URL); err != nil {
		return in, err
	}
	return in, nil
}

func (in *Instance) run(ctx context.Context, name string, fn func(context.Context) error) {
	in.wg.Add(1)
	go func() {
		defer in.wg.Done()
		if err := fn(ctx); err != nil && ctx.Err() == nil {
			in.errc <- fmt.Errorf("%s: %w", name, err)
		}
	}()
}

// startClusterAPI starts Cluster API's controllers and webhooks on the
// embedded management cluster, and the workload clusters; it returns the
// simulated OpenStack provider, which runs with the reconciler (on the
// leader).
func (in *Instance) startClusterAPI(ctx context.Context, o Options) (*capo.Provider, error) {
	if in.env == nil || in.env.Webhooks == nil {
		return nil, errors.New("real Cluster API controllers run only in the embedded management cluster")
	}
	if o.Hypervisor {
		fmt.Fprintln(o.Out, "keel: starting Cluster API v1.14's controllers and webhooks; CAPO runs beside keel, the servers' kubelets and the workload API servers are simulated (see docs/simulator.md)")
	} else {
		fmt.Fprintln(o.Out, "keel: starting Cluster API v1.14's controllers and webhooks; OpenStack and the workload clusters are simulated (see docs/simulator.md)")
	}
	// The workload clusters' etcd and API servers of a keel killed before
	// (SIGKILL, a crash) still hold the data folder; the new ones could not
	// start beside them.
	mgmtcluster.KillOrphans(filepath.Join(o.DataDir, "workload", "etcd"), o.Out)
	return startClusterAPI(ctx, in.Config, ClusterAPIOptions{
		Webhooks: in.env.Webhooks, DataDir: filepath.Join(o.DataDir, "workload"), SimulateStep: o.SimulateStep, Log: o.Log,
		Hypervisor: o.Hypervisor, WorkloadAPIServers: o.WorkloadAPIServers,
	}, in.run)
}

// ClusterAPIOptions configure RunClusterAPI.
type ClusterAPIOptions struct {
	// Webhooks is where the management cluster's Cluster API webhook
	// configurations send their requests (mgmtcluster.Options.Webhooks).
	Webhooks *mgmtcluster.WebhookServing
	// DataDir holds the workload clusters' data.
	DataDir string
	// SimulateStep is how long each simulated OpenStack operation takes.
	SimulateStep time.Duration
	// Hypervisor: CAPO is real and runs elsewhere; simulate only the
	// servers' insides (Options.Hypervisor).
	Hypervisor bool
	// WorkloadAPIServers is what serves the workload clusters' API.
	WorkloadAPIServers workload.APIServers
	Log                *slog.Logger
}

// RunClusterAPI runs, on the management cluster behind cfg, what a real
// management cluster runs next to keel (clusterctl init): Cluster API's
// controllers and webhooks, with OpenStack (CAPO) and the workload clusters
// simulated. It is what keel runs in its embedded management cluster, for
// tests that run keel on a management cluster of their own (its RBAC, its
// replicas); it returns once ctx is done.
func RunClusterAPI(ctx context.Context, cfg *rest.Config, o ClusterAPIOptions) error {
	if o.Webhooks == nil {
		return errors.New("running Cluster API needs its webhooks served (mgmtcluster.Options.Webhooks)")
	}
	if o.Log == nil {
		o.Log = slog.New(slog.DiscardHandler)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	var wg sync.WaitGroup
	errc := make(chan error, 4)
	run := func(_ context.Context, name string, fn func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx); err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	p, err := startClusterAPI(ctx, cfg, o, run)
	if err == nil {
		run(ctx, "simulated capo", p.Start)
		select {
		case <-ctx.Done():
		case err = <-errc:
		}
	}
	cancel()
	wg.Wait()
	return err
}

// startClusterAPI starts Cluster API's controllers and webhooks and the
// workload clusters with run, and returns the simulated OpenStack provider
// (not started).
func startClusterAPI(ctx context.Context, cfg *rest.Config, o ClusterAPIOptions, run func(context.Context, string, func(context.Context) error)) (*capo.Provider, error) {
	w := o.Webhooks
	ctrls, err := clusterapi.Start(ctx, cfg, clusterapi.Options{
		WebhookHost: w.Host, WebhookPort: w.Port, WebhookCertDir: w.CertDir,
		Logger: logr.FromSlogHandler(o.Log.With("component", "cluster-api").Handler()),
	})
	if err != nil {
		return nil, err
	}
	run(ctx, "cluster api", func(ctx context.Context) error {
		<-ctx.Done()
		return ctrls.Wait()
	})
	workloads, err := workload.Start(ctx, workload.Options{
		BinDir: binaries.Dir(), DataDir: o.DataDir, APIServers: o.WorkloadAPIServers,
		Log: logr.FromSlogHandler(o.Log.With("component", "workload-clusters").Handler()),
	})
	if err != nil {
		return nil, err
	}
	run(ctx, "workload clusters", func(ctx context.Context) error {
		<-ctx.Done()
		workloads.Stop()
		return nil
	})
	co := capo.Options{
		StepDelay: o.SimulateStep, Workloads: workloads,
		Logger: logr.FromSlogHandler(o.Log.With("component", "simulated-capo").Handler()),
	}
	if o.Hypervisor {
		co.Logger = logr.FromSlogHandler(o.Log.With("component", "simulated-hypervisor").Handler())
		return capo.NewHypervisor(cfg, co)
	}
	return capo.New(cfg, co)
}

// Wait blocks until ctx is done or a component fails.
func (in *Instance) Wait(ctx context.Context) error {
	select {
	case <-ctx.Done():
		return nil
	case err := <-in.errc:
		return err
	}
}

// KubeConfig is an admin kubeconfig of the embedded management cluster
// (nil with Options.Config): what a provider running beside keel, such as
// the real CAPO of the real-OpenStack tests, connects with.
func (in *Instance) KubeConfig() []byte {
	if in.env == nil {
		return nil
	}
	return in.env.KubeConfig
}

// Stop shuts keel down: the API first, then the controllers, then the
// embedded management cluster. It is safe to call more than once.
func (in *Instance) Stop() error {
	in.once.Do(func() {
		if in.srv != nil {
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			_ = in.srv.Shutdown(ctx)
			cancel()
		}
		in.cancel()
		in.wg.Wait()
		if in.stopEvents != nil {
			in.stopEvents()
		}
		if in.DB != nil {
			in.DB.Close()
		}
		if in.env != nil {
			in.err = in.env.Stop()
		}
	})
	return in.err
}

// followRepository projects commits that arrive from outside keel's API (a
// push, a merged pull request) into the read model: at once when the store
// announces them (a fetch from the Git remote), within a second otherwise
// (a git push to the local repository).
func followRepository(ctx context.Context, db *readmodel.DB, store *gitstore.Store, log *slog.Logger) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	moved := store.Subscribe()
	// An outage: of the Git server a replica behind fetches from, or of
	// PostgreSQL.
	out := outage{log: log, level: slog.LevelError,
		failing: "projecting the repository; retrying every second", recovered: "projecting the repository works again"}
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		case <-moved:
		}
		out.report(ctx, db.Sync(ctx, store))
	}
}

func waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		resp, err := http.Get(url + "/")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return fmt.Errorf("the API did not answer on %s", url)
}

// HTTP server bounds: a slow or idle client cannot hold a connection (and
// its goroutine and buffers) for long. Reads are bounded by the body limit
// (restapi.MaxBodyBytes); writes by the slowest request, a create that
// pushes to a Git server and calls Keystone, each with its own timeout.
const (
	readHeaderTimeout = 10 * time.Second
	readTimeout       = 30 * time.Second
	writeTimeout      = 2 * time.Minute
	idleTimeout       = 2 * time.Minute
	maxHeaderBytes    = 256 << 10
)

func newHTTPServer(h http.Handler) *http.Server {
	return &http.Server{
		Handler:           h,
		ReadHeaderTimeout: readHeaderTimeout,
		ReadTimeout:       readTimeout,
		WriteTimeout:      writeTimeout,
		IdleTimeout:       idleTimeout,
		MaxHeaderBytes:    maxHeaderBytes,
	}
}

// runObserver watches the management cluster into the read model until
// ctx is done; each leadership term gets an observer of its own (its
// informers and queue do not restart).
func runObserver(ctx context.Context, in *Instance, o Options) error {
	obs, err := observer.New(in.Config, in.DB, o.Log.With("component", "observer"))
	if err != nil {
		return err
	}
	// CAPO never says that Octavia put an API load balancer in ERROR: the
	// observer asks Octavia itself (not without OpenStack: nothing to ask).
	if f, ok := o.OpenStack.(observer.LoadBalancerFaults); ok {
		obs.CheckLoadBalancers(f, 0)
	}
	// Nor Nova's fault of a server in ERROR (no valid host).
	if f, ok := o.OpenStack.(observer.ServerFaults); ok {
		obs.ReadServerFaults(f)
	}
	return obs.Run(ctx)
}

// caRotationInterval is how often the leader looks for CA rotations whose
// phase rolled out: a phase takes at least one machine rollout (minutes on
// a cloud, seconds simulated), so a second's delay is noise.
const caRotationInterval = time.Second
