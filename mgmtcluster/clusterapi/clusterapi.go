// Package clusterapi runs Cluster API's own controllers and webhooks
// (sigs.k8s.io/cluster-api, the version in keel's go.mod) in keel's process
// against a management cluster: the core provider (Cluster, topology,
// MachineDeployment, MachineSet, Machine, MachineHealthCheck,
// ClusterResourceSet), the kubeadm control plane provider and the kubeadm
// bootstrap provider, as the three Deployments clusterctl installs run them.
//
// The three providers run in one controller-runtime manager: one cache of
// the management cluster's objects (the union of what each provider's
// main.go caches) and one webhook server. See newManager.
//
// It is the embedded management cluster's Cluster API (mgmtcluster starts
// the apiserver, with Options.Webhooks pointing the webhook configurations at
// the server started here). It must never run on a management cluster where
// the infrastructure simulator plays Cluster API, nor on one where a real
// Cluster API is installed: both would write the same objects.
package clusterapi

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/go-logr/logr"
	"go.etcd.io/etcd/client/pkg/v3/logutil"
	"go.uber.org/zap/zapcore"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/webhook"

	"sigs.k8s.io/cluster-api/feature"
)

// Options configure the controllers. The zero value runs them without
// webhooks, metrics, probes or leader election.
type Options struct {
	// WebhookHost, WebhookPort and WebhookCertDir are where the webhook
	// server listens and its tls.crt/tls.key (mgmtcluster.Env.Webhooks).
	// Port 0: no webhook server.
	WebhookHost    string
	WebhookPort    int
	WebhookCertDir string
	// MetricsAddr and HealthAddr are the listen addresses of the metrics
	// and health probe endpoints (e.g. "127.0.0.1:0"); empty turns them
	// off, so parallel tests never collide on a port.
	MetricsAddr, HealthAddr string
	// LeaderElection makes the controllers elect a leader in
	// LeaderElectionNamespace, with the core provider's lease name. Off by
	// default: keel elects its own leader and starts the controllers only
	// there.
	LeaderElection          bool
	LeaderElectionNamespace string
	// Namespace restricts the controllers to one namespace; empty watches
	// all, as Cluster API does by default.
	Namespace string
	// Concurrency is every controller's MaxConcurrentReconciles (default 2:
	// Cluster API's defaults, 10 to 100, assume a dedicated node).
	Concurrency int
	// SyncPeriod is the resync interval (default Cluster API's 10 minutes).
	SyncPeriod time.Duration
	// Logger receives the controllers' logs; the zero value discards them.
	Logger logr.Logger
}

// Controllers are running Cluster API controllers.
type Controllers struct {
	errs chan error
}

// Start builds the providers' manager, starts it and returns once its caches
// are synced and, with a webhook port, the webhook server answers. The
// controllers run until ctx is done; Wait returns then.
func Start(ctx context.Context, cfg *rest.Config, o Options) (*Controllers, error) {
	if o.Concurrency <= 0 {
		o.Concurrency = 2
	}
	if o.SyncPeriod <= 0 {
		o.SyncPeriod = 10 * time.Minute
	}
	if o.Logger.GetSink() == nil {
		o.Logger = logr.Discard()
	}
	// Cluster API's feature gates are process-wide. Its release manifests
	// turn ClusterTopology on through clusterctl's CLUSTER_TOPOLOGY; keel
	// renders every cluster on a ClusterClass, so it must be on.
	if err := feature.MutableGates.Set(string(feature.ClusterTopology) + "=true"); err != nil {
		return nil, err
	}
	ctx = ctrl.LoggerInto(ctx, o.Logger)
	mgr, err := setupProviders(ctx, cfg, o)
	if err != nil {
		return nil, err
	}
	c := &Controllers{errs: make(chan error, 1)}
	go func() { c.errs <- mgr.Start(ctx) }()
	if !mgr.GetCache().WaitForCacheSync(ctx) {
		return nil, errors.Join(errors.New("cluster api: caches did not sync"), ctx.Err())
	}
	if o.WebhookPort == 0 {
		return c, nil
	}
	if err := c.waitForWebhooks(ctx, mgr); err != nil {
		return nil, err
	}
	return c, nil
}

// setupProviders registers the three providers' controllers, and with a
// webhook port their webhooks, on one manager.
func setupProviders(ctx context.Context, cfg *rest.Config, o Options) (manager.Manager, error) {
	etcdLogger, err := logutil.CreateDefaultZapLogger(zapcore.WarnLevel)
	if err != nil {
		return nil, err
	}
	mgr, err := newManager(cfg, o)
	if err != nil {
		return nil, err
	}
	p, err := newShared(ctx, mgr, o)
	if err != nil {
		return nil, err
	}
	if err := setupCore(ctx, mgr, o, p); err != nil {
		return nil, fmt.Errorf("cluster api core: %w", err)
	}
	if err := setupControlPlane(ctx, mgr, o, p, etcdLogger); err != nil {
		return nil, fmt.Errorf("cluster api kubeadm control plane: %w", err)
	}
	if err := setupBootstrap(ctx, mgr, o, p); err != nil {
		return nil, fmt.Errorf("cluster api kubeadm bootstrap: %w", err)
	}
	if o.WebhookPort != 0 {
		if err := setupWebhooks(mgr, p.clusterCache); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

func (c *Controllers) waitForWebhooks(ctx context.Context, mgr manager.Manager) error {
	check := mgr.GetWebhookServer().StartedChecker()
	for check(nil) != nil {
		select {
		case <-ctx.Done():
			return ctx.Err()
		case err := <-c.errs:
			return fmt.Errorf("cluster api: %w", err)
		case <-time.After(50 * time.Millisecond):
		}
	}
	return nil
}

// Wait blocks until the manager has stopped (its context is done) and
// returns its error.
func (c *Controllers) Wait() error {
	return <-c.errs
}

// managerOptions are the manager's options but its cache and client,
// which newManager takes from the providers' setup packages.
func managerOptions(o Options) ctrl.Options {
	return ctrl.Options{
		Logger: o.Logger,
		Controller: config.Controller{
			// Two providers register a "clustercache" controller, and keel
			// may start the controllers more than once in a process (tests):
			// controller-runtime's name check is process-wide.
			SkipNameValidation: new(true),
			UsePriorityQueue:   new(feature.Gates.Enabled(feature.PriorityQueue)),
		},
		LeaderElection:          o.LeaderElection,
		LeaderElectionID:        "controller-leader-election-capi",
		LeaderElectionNamespace: o.LeaderElectionNamespace,
		Metrics:                 metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress:  o.HealthAddr,
	}
}

// informerName is the name a provider's informers are registered under.
// client-go's registry of informer names is process-wide and Cluster API
// never releases its names, so a second Start in a process (a test binary
// with several tests) gets a numbered name rather than a panic; the name
// only labels logs and metrics.
func informerName(name string) string {
	informerNames.Lock()
	defer informerNames.Unlock()
	informerNames.used[name]++
	if n := informerNames.used[name]; n > 1 {
		return fmt.Sprintf("%s-%d", name, n)
	}
	return name
}

var informerNames = struct {
	sync.Mutex
	used map[string]int
}{used: map[string]int{}}

func concurrency(o Options) controller.Options {
	return controller.Options{MaxConcurrentReconciles: o.Concurrency}
}

// webhookServer is the one server all three providers' webhooks share: the
// apiserver reaches them at one address (mgmtcluster installs every
// configuration with envtest's single local host and port).
func webhookServer(o Options) webhook.Server {
	return webhook.NewServer(webhook.Options{Host: o.WebhookHost, Port: o.WebhookPort, CertDir: o.WebhookCertDir})
}
