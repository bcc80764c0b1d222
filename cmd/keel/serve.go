package main

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/gophercloud/gophercloud/v2"
	"github.com/spf13/cobra"
	"k8s.io/client-go/tools/clientcmd"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/server"
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
	leaderElect                           bool
	policyFile                            string
	lookups, region                       string
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
			if !cmd.Flags().Changed("openstack-lookups") && !embedded {
				o.lookups = "real"
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
	f.StringVar(&o.policyFile, "policy-file", "", "policy overrides (YAML or JSON, oslo.policy rule syntax) on top of Magnum's defaults")
	f.StringVar(&o.lookups, "openstack-lookups", "given", "how the API resolves images, flavors, networks, keypairs and volume types: given (as written, no lookups; default in embedded mode) or real (Glance, Nova, Neutron and Cinder with keel's service user from OS_AUTH_URL, OS_USERNAME, OS_PASSWORD, OS_PROJECT_NAME, OS_USER_DOMAIN_NAME, OS_PROJECT_DOMAIN_NAME; default with --kubeconfig)")
	f.StringVar(&o.region, "os-region", os.Getenv("OS_REGION_NAME"), "OpenStack region of the services looked up (with --openstack-lookups real)")
	f.BoolVar(&o.leaderElect, "leader-elect", false, "reconcile only while holding the keel-reconciler Lease (several replicas on one PostgreSQL read model)")
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

	so := server.Options{
		DataDir: o.dataDir, Listen: o.listen, Database: o.database, AuthURL: o.keystoneURL,
		Simulate: o.simulate, SimulateStep: o.simulateStep, MaxClustersPerProject: o.maxClusters, Log: log,
		LeaderElection: o.leaderElect,
	}
	if o.kubeconfig != "" {
		cfg, err := clientcmd.BuildConfigFromFlags("", o.kubeconfig)
		if err != nil {
			return fmt.Errorf("--kubeconfig: %w", err)
		}
		cfg.QPS, cfg.Burst = 100, 200
		so.Config = cfg
	}
	if o.policyFile != "" {
		p, err := restapi.LoadPolicy(o.policyFile)
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
		auth := serviceAuth()
		auth.IdentityEndpoint = o.keystoneURL
		so.OpenStack = openstack.New(openstack.Options{Auth: auth, Region: o.region})
	default:
		return fmt.Errorf("--openstack-lookups must be given or real, not %q", o.lookups)
	}
	switch o.auth {
	case "noauth":
		so.Auth = restapi.NoAuth{DefaultProject: o.defaultProject, Admin: o.noauthAdmin}
	case "keystone":
		if o.keystoneURL == "" {
			return errors.New("--auth keystone needs --keystone-url (or OS_AUTH_URL)")
		}
		so.Auth = &restapi.Keystone{AuthURL: o.keystoneURL, Service: serviceAuth()}
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

// serviceAuth is keel's service user, from the OS_* environment.
func serviceAuth() gophercloud.AuthOptions {
	return gophercloud.AuthOptions{
		Username: os.Getenv("OS_USERNAME"), Password: os.Getenv("OS_PASSWORD"),
		DomainName: firstEnv("OS_USER_DOMAIN_NAME", "OS_DOMAIN_NAME"),
		Scope: &gophercloud.AuthScope{ProjectName: os.Getenv("OS_PROJECT_NAME"),
			DomainName: firstEnv("OS_PROJECT_DOMAIN_NAME", "OS_DOMAIN_NAME")},
	}
}

func firstEnv(names ...string) string {
	for _, n := range names {
		if v := strings.TrimSpace(os.Getenv(n)); v != "" {
			return v
		}
	}
	return ""
}
