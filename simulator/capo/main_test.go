package capo_test

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/go-logr/logr/funcr"

	"github.com/openkeel/keel/mgmtcluster"
	"github.com/openkeel/keel/mgmtcluster/binaries"
	"github.com/openkeel/keel/mgmtcluster/clusterapi"
	"github.com/openkeel/keel/simulator/capo"
	"github.com/openkeel/keel/simulator/workload"
)

// The package's tests share one management cluster with Cluster API's real
// controllers and webhooks, the simulated CAPO and its workload clusters.
var (
	env       *mgmtcluster.Env
	workloads *workload.Manager
)

// step is the simulated duration of each OpenStack operation.
const step = 200 * time.Millisecond

func TestMain(m *testing.M) { os.Exit(run(m)) }

func run(m *testing.M) int {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	e, err := mgmtcluster.Start(ctx, mgmtcluster.Options{Webhooks: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, "mgmtcluster:", err)
		return 1
	}
	defer func() { _ = e.Stop() }()
	env = e
	c, err := clusterapi.Start(ctx, e.Config, clusterapi.Options{
		WebhookHost: e.Webhooks.Host, WebhookPort: e.Webhooks.Port, WebhookCertDir: e.Webhooks.CertDir,
		// Short resyncs: the Machine controller polls workload clusters it
		// cannot watch yet.
		SyncPeriod: 30 * time.Second,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterapi:", err)
		return 1
	}
	w, err := workload.Start(ctx, workload.Options{BinDir: binaries.Dir(), Log: logr.Discard()})
	if err != nil {
		fmt.Fprintln(os.Stderr, "workload:", err)
		return 1
	}
	defer w.Stop()
	workloads = w
	log := logr.Discard()
	if os.Getenv("KEEL_TEST_LOG") != "" {
		log = funcr.New(func(prefix, args string) { fmt.Fprintln(os.Stderr, prefix, args) }, funcr.Options{Verbosity: 1})
	}
	p, err := capo.New(e.Config, capo.Options{StepDelay: step, Workloads: w, Logger: log})
	if err != nil {
		fmt.Fprintln(os.Stderr, "capo:", err)
		return 1
	}
	go func() { _ = p.Start(ctx) }()
	code := m.Run()
	cancel()
	_ = c.Wait()
	return code
}
