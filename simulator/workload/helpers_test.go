package workload

import (
	"context"
	"fmt"
	"os"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/mgmtcluster/binaries"
)

// manager is shared by the package's tests: each test makes its own
// cluster, as the simulator does per CAPI Cluster.
var manager *Manager

func TestMain(m *testing.M) {
	ctx := context.Background()
	bin, err := binaries.Ensure(ctx, os.Stderr)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	manager, err = Start(ctx, Options{BinDir: bin, Log: logr.Discard()})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	code := m.Run()
	manager.Stop()
	os.Exit(code)
}

// newCluster registers a cluster with fresh key material, as keel's API
// generates it at create time, and removes it when the test ends.
func newCluster(t *testing.T, name string) (*Cluster, *pki.ClusterPKI) {
	t.Helper()
	p, err := pki.Generate(name, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := manager.EnsureCluster(ClusterSpec{Name: "magnum-system/" + name, CA: p.CA, EtcdCA: p.EtcdCA, ServiceAccount: p.ServiceAccount})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { manager.DeleteCluster("magnum-system/" + name) })
	return c, p
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}
