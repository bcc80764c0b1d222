package workload

import (
	"context"
	"io"
	"testing"
	"time"

	"github.com/go-logr/logr"

	"github.com/openkeel/keel/internal/pki"
	"github.com/openkeel/keel/mgmtcluster/binaries"
)

// The package's other tests run on light API servers, the default. The real
// kind (a kube-apiserver process per cluster over the shared etcd) stays
// what --workload-apiservers=real promises: a machine boots and registers
// its Node, Cluster API's etcd client reaches its member through the real
// API server's port-forward, and a control-plane machine with a new CA
// restarts it with the data kept.
func TestRealAPIServersServeTheSimulation(t *testing.T) {
	ctx := testContext(t)
	bin, err := binaries.Ensure(context.Background(), io.Discard)
	if err != nil {
		t.Fatal(err)
	}
	m, err := Start(ctx, Options{BinDir: bin, APIServers: RealAPIServers, Log: logr.Discard()})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(m.Stop)
	p, err := pki.Generate("real", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	c, err := m.EnsureCluster(ClusterSpec{Name: "magnum-system/real", CA: p.CA, EtcdCA: p.EtcdCA, ServiceAccount: p.ServiceAccount})
	if err != nil {
		t.Fatal(err)
	}
	if _, ok := runningAPI(c).(*apiServer); c.store != nil || ok {
		t.Fatalf("a real manager's cluster has a light store (%v) or an API server before boot (%v)", c.store != nil, ok)
	}
	first := Machine{Name: "real-control-plane-aaaaa", ControlPlane: true, IP: "10.0.0.31", KubeletVersion: "v1.33.4"}
	if err := c.Boot(ctx, first); err != nil {
		t.Fatal(err)
	}
	if _, ok := runningAPI(c).(*apiServer); !ok {
		t.Fatalf("the API server is a %T, want a kube-apiserver process", runningAPI(c))
	}
	members, err := etcdClient(ctx, t, c, p.EtcdCA, first.Name).Members(ctx)
	if err != nil || len(members) != 1 {
		t.Fatalf("etcd members through the real API server: %v, %v", members, err)
	}
	ca := newRotationCAs(t, p.CA)
	if err := c.Boot(ctx, Machine{Name: "real-control-plane-bbbbb", ControlPlane: true, IP: "10.0.0.32", KubeletVersion: "v1.33.4", CA: ca.trust}); err != nil {
		t.Fatal(err)
	}
	if _, err := c.nodeObject(ctx, first.Name); err != nil || c.restarts != 1 {
		t.Fatalf("after a boot with a new CA: restarts %d, first Node %v", c.restarts, err)
	}
}
