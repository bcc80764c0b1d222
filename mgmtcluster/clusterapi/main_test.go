package clusterapi_test

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"
	ctrl "sigs.k8s.io/controller-runtime"

	"github.com/openkeel/keel/mgmtcluster"
	"github.com/openkeel/keel/mgmtcluster/clusterapi"
)

// env is a management cluster with Cluster API's webhooks installed and its
// controllers running, shared by the package's tests.
var env *mgmtcluster.Env

func TestMain(m *testing.M) {
	os.Exit(run(m))
}

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
	start := time.Now()
	// KEEL_TEST_CAPI_LOG=1 shows the controllers' logs.
	logger := logr.Discard()
	if os.Getenv("KEEL_TEST_CAPI_LOG") != "" {
		logger = logr.FromSlogHandler(slog.NewTextHandler(os.Stderr, &slog.HandlerOptions{Level: slog.LevelDebug}))
	}
	ctrl.SetLogger(logger)
	c, err := clusterapi.Start(ctx, e.Config, clusterapi.Options{
		Logger:         logger,
		WebhookHost:    e.Webhooks.Host,
		WebhookPort:    e.Webhooks.Port,
		WebhookCertDir: e.Webhooks.CertDir,
	})
	if err != nil {
		fmt.Fprintln(os.Stderr, "clusterapi:", err)
		return 1
	}
	fmt.Fprintf(os.Stderr, "clusterapi: controllers started in %s\n", time.Since(start).Round(time.Millisecond))
	code := m.Run()
	cancel()
	if err := c.Wait(); err != nil {
		fmt.Fprintln(os.Stderr, "clusterapi: stop:", err)
	}
	return code
}
