package server

import (
	"context"
	"fmt"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"time"

	"github.com/openkeel/keel/mgmtcluster"
	"github.com/openkeel/keel/simulator/workload"
)

// startEmbedded starts the embedded management cluster in dataDir/etcd
// (with Cluster API's webhooks served when webhooks is set) and writes its
// admin kubeconfig to dataDir/management.kubeconfig.
func startEmbedded(ctx context.Context, dataDir string, webhooks bool, out io.Writer) (*mgmtcluster.Env, error) {
	fmt.Fprintln(out, "keel: starting the embedded management cluster (kube-apiserver + etcd + kube-controller-manager's garbage collector)...")
	env, err := mgmtcluster.Start(ctx, mgmtcluster.Options{
		EtcdDataDir: filepath.Join(dataDir, "etcd"), Progress: out, Webhooks: webhooks,
		// No kube-controller-manager otherwise: what Cluster API leaves
		// to the garbage collector after a delete would stay forever.
		GarbageCollector: true,
	})
	if err != nil {
		return nil, err
	}
	kc := filepath.Join(dataDir, "management.kubeconfig")
	if err := env.WriteKubeconfig(kc); err != nil {
		return nil, fmt.Errorf("%w (and stopping the management cluster: %v)", err, env.Stop())
	}
	fmt.Fprintf(out, "keel: management cluster up; kubeconfig in %s\n", kc)
	return env, nil
}

// ManagementOptions configure RunManagement.
type ManagementOptions struct {
	// DataDir holds the management cluster's etcd, its kubeconfig
	// (DataDir/management.kubeconfig) and the workload clusters' data.
	DataDir string
	// SimulateStep is how long each simulated OpenStack operation takes.
	SimulateStep time.Duration
	// WorkloadAPIServers is what serves the workload clusters' API.
	WorkloadAPIServers workload.APIServers
	Log                *slog.Logger
	// Out receives the user-facing progress lines.
	Out io.Writer
}

// RunManagement runs the embedded default's management cluster without
// keel (`keel management`): the kube-apiserver, etcd and garbage
// collector, Cluster API's controllers and webhooks, and the simulated
// OpenStack and workload clusters, each in the process that clusterctl's
// layout would give it its own. Any number of `keel serve --kubeconfig`
// then use it as they would a real management cluster, so that keel's own
// cost is measured apart from Cluster API's (docs/performance.md). It
// returns once ctx is done and everything it started has stopped.
func RunManagement(ctx context.Context, o ManagementOptions) (err error) {
	if o.Log == nil {
		o.Log = slog.Default()
	}
	if o.Out == nil {
		o.Out = os.Stderr
	}
	if err := os.MkdirAll(o.DataDir, 0o755); err != nil {
		return err
	}
	env, err := startEmbedded(ctx, o.DataDir, true, o.Out)
	if err != nil {
		return err
	}
	defer func() {
		if serr := env.Stop(); err == nil {
			err = serr
		}
	}()
	workloads := filepath.Join(o.DataDir, "workload")
	mgmtcluster.KillOrphans(filepath.Join(workloads, "etcd"), o.Out) // of a management process killed before
	fmt.Fprintln(o.Out, "keel: running Cluster API v1.14's controllers and webhooks; OpenStack and the workload clusters are simulated (see docs/simulator.md)")
	return RunClusterAPI(ctx, env.Config, ClusterAPIOptions{
		Webhooks: env.Webhooks, DataDir: workloads, SimulateStep: o.SimulateStep,
		WorkloadAPIServers: o.WorkloadAPIServers, Log: o.Log,
	})
}
