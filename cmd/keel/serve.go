package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"net/http"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/spf13/cobra"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/go-logr/logr"

	"github.com/openkeel/keel/internal/gitstore"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/observer"
	"github.com/openkeel/keel/internal/readmodel"
	"github.com/openkeel/keel/internal/simulator"
	"github.com/openkeel/keel/internal/testenv"
	"github.com/openkeel/keel/internal/version"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi"
)

type serveOptions struct {
	dataDir, listen, kubeconfig, database string
	auth, keystoneURL                     string
	defaultProject                        string
	noauthAdmin                           bool
	simulate                              bool
	simulateStep                          time.Duration
	maxClusters                           int64
	logLevel                              string
}

func serveCmd() *cobra.Command {
	o := &serveOptions{}
	cmd := &cobra.Command{
		Use:   "serve",
		Short: "Serve the Magnum API and reconcile the cluster repository",
		Long: `Serve the Magnum container-infra API v1, follow the cluster repository and apply it
to the management cluster.

Without --kubeconfig keel runs the embedded default: it starts its own management
cluster (a real kube-apiserver and etcd, built on first use), installs the Cluster API
and CAPO CRDs, and simulates the infrastructure so that clusters progress.`,
		RunE: func(cmd *cobra.Command, _ []string) error {
			embedded := o.kubeconfig == ""
			if !cmd.Flags().Changed("simulate-infrastructure") {
				o.simulate = embedded
			}
			if !cmd.Flags().Changed("auth") && !embedded {
				o.auth = "keystone"
			}
			return serve(cmd.Context(), o)
		},
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", "./.keel", "folder of the Git repository (repo.git), the SQLite read model and the embedded management cluster")
	f.StringVar(&o.listen, "listen", "127.0.0.1:9511", "address of the Magnum API")
	f.StringVar(&o.kubeconfig, "kubeconfig", "", "kubeconfig of an existing management cluster (default: start an embedded one)")
	f.StringVar(&o.database, "database", "", "read model: a postgres:// URL, or a SQLite file (default DATA-DIR/keel.db)")
	f.StringVar(&o.auth, "auth", "noauth", "authentication: noauth (trust X-Project-Id etc.) or keystone")
	f.StringVar(&o.keystoneURL, "keystone-url", os.Getenv("OS_AUTH_URL"), "Keystone v3 URL (with --auth keystone); keel's service user comes from OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, OS_USER_DOMAIN_NAME, OS_PROJECT_DOMAIN_NAME")
	f.StringVar(&o.defaultProject, "default-project", "default", "project of noauth requests without X-Project-Id")
	f.BoolVar(&o.noauthAdmin, "noauth-admin", true, "noauth requests without X-Roles are admin")
	f.BoolVar(&o.simulate, "simulate-infrastructure", false, "run the infrastructure simulator (default: on with the embedded management cluster only)")
	f.DurationVar(&o.simulateStep, "simulate-step", 2*time.Second, "time between two simulated provisioning steps")
	f.Int64Var(&o.maxClusters, "max-clusters-per-project", 20, "Magnum's default cluster quota")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
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

	ctx, stop := signal.NotifyContext(parent, syscall.SIGINT, syscall.SIGTERM)
	defer stop()

	if err := os.MkdirAll(o.dataDir, 0o755); err != nil {
		return err
	}
	store, err := gitstore.Open(filepath.Join(o.dataDir, "repo.git"))
	if err != nil {
		return err
	}
	dsn := o.database
	if dsn == "" {
		dsn = filepath.Join(o.dataDir, "keel.db")
	}
	db, err := readmodel.Open(ctx, dsn)
	if err != nil {
		return err
	}
	defer db.Close()
	if err := db.Sync(ctx, store); err != nil {
		return fmt.Errorf("projecting the repository into the read model: %w", err)
	}

	var cfg *rest.Config
	var env *testenv.Env
	if o.kubeconfig == "" {
		fmt.Fprintln(os.Stderr, "keel: starting the embedded management cluster (kube-apiserver + etcd)...")
		env, err = testenv.Start(ctx, testenv.Options{EtcdDataDir: filepath.Join(o.dataDir, "etcd"), Progress: os.Stderr})
		if err != nil {
			return err
		}
		defer func() {
			fmt.Fprintln(os.Stderr, "keel: stopping the embedded management cluster")
			if err := env.Stop(); err != nil {
				log.Error("stopping the management cluster", "err", err)
			}
		}()
		kc := filepath.Join(o.dataDir, "management.kubeconfig")
		if err := env.WriteKubeconfig(kc); err != nil {
			return err
		}
		fmt.Fprintf(os.Stderr, "keel: management cluster up; kubeconfig in %s\n", kc)
		cfg = env.Config
	} else {
		if cfg, err = clientcmd.BuildConfigFromFlags("", o.kubeconfig); err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
		cfg.QPS, cfg.Burst = 100, 200
	}
	c, err := client.New(cfg, client.Options{Scheme: kube.NewScheme()})
	if err != nil {
		return err
	}

	var auth restapi.Authenticator
	switch o.auth {
	case "noauth":
		auth = restapi.NoAuth{DefaultProject: o.defaultProject, Admin: o.noauthAdmin}
	case "keystone":
		if o.keystoneURL == "" {
			return errors.New("--auth keystone needs --keystone-url (or OS_AUTH_URL)")
		}
		auth = &restapi.Keystone{AuthURL: o.keystoneURL, Service: gophercloud.AuthOptions{
			Username: os.Getenv("OS_USERNAME"), Password: os.Getenv("OS_PASSWORD"),
			DomainName: firstEnv("OS_USER_DOMAIN_NAME", "OS_DOMAIN_NAME"),
			Scope: &gophercloud.AuthScope{ProjectName: os.Getenv("OS_PROJECT_NAME"),
				DomainName: firstEnv("OS_PROJECT_DOMAIN_NAME", "OS_DOMAIN_NAME")},
		}}
	default:
		return fmt.Errorf("--auth must be noauth or keystone, not %q", o.auth)
	}

	api := restapi.New(restapi.Config{
		Store: store, DB: db, Auth: auth, AuthURL: o.keystoneURL, Log: log,
		MaxClustersPerProject: o.maxClusters, ClusterClass: version.ClusterClassName(),
	})

	var wg sync.WaitGroup
	errc := make(chan error, 4)
	run := func(name string, fn func(context.Context) error) {
		wg.Add(1)
		go func() {
			defer wg.Done()
			if err := fn(ctx); err != nil && ctx.Err() == nil {
				errc <- fmt.Errorf("%s: %w", name, err)
			}
		}()
	}
	rec := reconciler.New(store, c, db, reconciler.Options{Log: log.With("component", "reconciler")})
	run("reconciler", rec.Run)
	obs, err := observer.New(cfg, db, log.With("component", "observer"))
	if err != nil {
		return err
	}
	run("observer", obs.Run)
	run("read model", func(ctx context.Context) error { return followRepository(ctx, db, store, log) })
	if o.simulate {
		fmt.Fprintln(os.Stderr, "keel: simulating the infrastructure (no OpenStack servers are created; see docs/simulator.md)")
		run("simulator", func(ctx context.Context) error {
			return simulator.Run(ctx, cfg, simulator.Options{StepDelay: o.simulateStep, Logger: logr.FromSlogHandler(log.With("component", "simulator").Handler())})
		})
	}

	ln, err := net.Listen("tcp", o.listen)
	if err != nil {
		return err
	}
	srv := &http.Server{Handler: api, ReadHeaderTimeout: 30 * time.Second}
	run("api", func(context.Context) error {
		if err := srv.Serve(ln); !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	})
	url := "http://" + ln.Addr().String()
	if err := waitReady(ctx, url); err != nil {
		return err
	}
	fmt.Printf("keel: ready on %s\n", url)

	select {
	case <-ctx.Done():
	case err = <-errc:
		log.Error("stopping", "err", err)
	}
	stop()
	shutdownCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	_ = srv.Shutdown(shutdownCtx)
	wg.Wait()
	return err
}

// followRepository projects commits that arrive from outside keel's API (a
// push, a merged pull request) into the read model.
func followRepository(ctx context.Context, db *readmodel.DB, store *gitstore.Store, log *slog.Logger) error {
	t := time.NewTicker(time.Second)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			if err := db.Sync(ctx, store); err != nil && ctx.Err() == nil {
				log.Error("projecting the repository", "err", err)
			}
		}
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

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}
