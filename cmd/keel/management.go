package main

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/go-logr/logr"
	"github.com/spf13/cobra"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/simulator/workload"
)

type managementOptions struct {
	dataDir, workloadAPIServers, logLevel, profiler string
	simulateStep                                    time.Duration
}

func managementCmd() *cobra.Command {
	o := &managementOptions{}
	cmd := &cobra.Command{
		Use:   "management [--data-dir DIR]",
		Short: "Run the embedded default's management cluster alone, for keel serve --kubeconfig",
		Long: `Run the management cluster of keel's embedded default without keel itself: a real
kube-apiserver and etcd, kube-controller-manager's garbage collector, Cluster API
v1.14's own controllers and webhooks, and simulated OpenStack servers and workload
clusters. Its admin kubeconfig is written to DATA-DIR/management.kubeconfig once it is up.

Then point keel at it as at any management cluster, from another process:

  keel serve --kubeconfig DATA-DIR/management.kubeconfig --auth noauth --openstack-lookups given

This is the layout of a real deployment (Cluster API runs in processes of its own, not
in keel's), so keel's own memory and CPU can be read apart from Cluster API's
(docs/performance.md), and several keel replicas can share one management cluster.
SIGINT or SIGTERM stops it and everything it started.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error { return runManagement(cmd.Context(), o) },
	}
	f := cmd.Flags()
	f.StringVar(&o.dataDir, "data-dir", "./.keel-management", "folder of the management cluster's etcd, its kubeconfig (management.kubeconfig) and the simulated workload clusters")
	f.DurationVar(&o.simulateStep, "simulate-step", 2*time.Second, "how long each simulated OpenStack operation takes")
	f.StringVar(&o.workloadAPIServers, "workload-apiservers", string(workload.LightAPIServers), "what serves each simulated workload cluster's Kubernetes API: light or real (as keel serve's flag; docs/simulator.md)")
	f.StringVar(&o.logLevel, "log-level", "info", "debug, info, warn or error")
	f.StringVar(&o.profiler, "profiler-address", "", "serve Go's profiles (/debug/pprof/) on this address (off when empty)")
	return cmd
}

func runManagement(parent context.Context, o *managementOptions) error {
	var level slog.Level
	if err := level.UnmarshalText([]byte(o.logLevel)); err != nil {
		return fmt.Errorf("--log-level: %w", err)
	}
	apiServers, err := workload.ParseAPIServers(o.workloadAPIServers)
	if err != nil {
		return fmt.Errorf("--workload-apiservers: %w", err)
	}
	if o.simulateStep < 0 {
		return fmt.Errorf("--simulate-step must not be negative, not %s", o.simulateStep)
	}
	log := slog.New(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: level}))
	slog.SetDefault(log)
	ctrllog.SetLogger(logr.FromSlogHandler(log.Handler()))
	ctx, stop := signal.NotifyContext(parent, syscall.SIGINT, syscall.SIGTERM)
	defer stop()
	if err := serveProfiler(ctx, o.profiler, log); err != nil {
		return fmt.Errorf("--profiler-address: %w", err)
	}
	err = server.RunManagement(ctx, server.ManagementOptions{
		DataDir: o.dataDir, SimulateStep: o.simulateStep, WorkloadAPIServers: apiServers, Log: log, Out: os.Stderr,
	})
	fmt.Fprintln(os.Stderr, "keel: management cluster stopped")
	return err
}
