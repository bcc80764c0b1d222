package workload

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"fmt"
	"net"
	"net/http"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/etcd"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/proxy"

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
func newCluster(t testing.TB, name string) (*Cluster, *pki.ClusterPKI) {
	t.Helper()
	p, err := pki.Generate(name, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return newClusterWith(t, name, p), p
}

// newClusterWith registers a cluster with the given key material.
func newClusterWith(t testing.TB, name string, p *pki.ClusterPKI) *Cluster {
	t.Helper()
	c, err := manager.EnsureCluster(ClusterSpec{Name: "magnum-system/" + name, CA: p.CA, EtcdCA: p.EtcdCA, ServiceAccount: p.ServiceAccount})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { manager.DeleteCluster("magnum-system/" + name) })
	return c
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	t.Cleanup(cancel)
	return ctx
}

// etcdClient is Cluster API's own etcd client (the one KubeadmControlPlane
// uses) for node's etcd member, port-forwarded through the workload
// cluster's API server with the simulator's admin config, authenticating
// with a client certificate of etcdCA.
func etcdClient(ctx context.Context, t *testing.T, c *Cluster, etcdCA pki.KeyPair, node string) *etcd.Client {
	t.Helper()
	clientCert, err := issue(etcdCA, leafSpec{CommonName: "cluster-api.x-k8s.io", Client: true})
	if err != nil {
		t.Fatal(err)
	}
	cert, err := clientCert.TLS()
	if err != nil {
		t.Fatal(err)
	}
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(etcdCA.Cert)
	cl, err := etcd.NewClient(ctx, etcd.ClientConfiguration{
		Endpoint: "etcd-" + node,
		Proxy:    proxy.Proxy{Kind: "pods", Namespace: "kube-system", KubeConfig: c.RESTConfig(), Port: 2379},
		// As KCP dials: the static pod name is not in the serving
		// certificate, so only the chain to the etcd CA is verified.
		TLSConfig: &tls.Config{
			Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12,
			InsecureSkipVerify: true, //nolint:gosec // replaced by VerifyConnection, as in KCP
			VerifyConnection: func(cs tls.ConnectionState) error {
				_, err := cs.PeerCertificates[0].Verify(x509.VerifyOptions{Roots: pool})
				return err
			},
		},
		DialTimeout: 10 * time.Second,
		CallTimeout: 10 * time.Second,
	})
	if err != nil {
		t.Fatalf("connecting to etcd-%s through the API server: %v", node, err)
	}
	t.Cleanup(func() { _ = cl.Close() })
	return cl
}

// rotationCAs are the two CAs of a rotation (old a, new b) and the
// <cluster>-ca material of the phases that replace control-plane machines
// with other material, as keel renders it (intent/ca_rotation.go; the sign
// phase keeps the trust phase's).
type rotationCAs struct {
	a, b          pki.KeyPair
	trust, finish pki.KeyPair
}

// newRotationCAs rotates the CA a to a new one with the same subject, as
// keel names every CA of a cluster after it.
func newRotationCAs(t *testing.T, a pki.KeyPair) rotationCAs {
	t.Helper()
	old, _, err := a.Parse()
	if err != nil {
		t.Fatal(err)
	}
	b := generateCA(t, old.Subject.CommonName)
	bundle := append(append([]byte{}, a.Cert...), b.Cert...)
	return rotationCAs{a: a, b: b, trust: pki.KeyPair{Cert: bundle, Key: a.Key}, finish: b}
}

func generateCA(t *testing.T, subject string) pki.KeyPair {
	t.Helper()
	p, err := pki.Generate(subject, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	return p.CA
}

// httpsClient trusts only roots and, when signer is not empty, presents a
// system:masters client certificate signed by it.
func httpsClient(t *testing.T, roots []byte, signer pki.KeyPair) *http.Client {
	t.Helper()
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(roots) {
		t.Fatal("no root certificate")
	}
	cfg := &tls.Config{RootCAs: pool, MinVersion: tls.VersionTLS12}
	if len(signer.Cert) > 0 {
		l, err := issue(signer, leafSpec{CommonName: "rotation-test", Organization: []string{"system:masters"}, Client: true})
		if err != nil {
			t.Fatal(err)
		}
		cert, err := l.TLS()
		if err != nil {
			t.Fatal(err)
		}
		cfg.Certificates = []tls.Certificate{cert}
	}
	hc := &http.Client{Timeout: 5 * time.Second, Transport: &http.Transport{TLSClientConfig: cfg}}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

// get GETs path on the cluster's API server: the HTTP status, or the
// error (a failed TLS verification) with status 0.
func get(ctx context.Context, c *Cluster, hc *http.Client, path string) (int, error) {
	host, port := c.Endpoint()
	url := "https://" + net.JoinHostPort(host, strconv.Itoa(int(port))) + path
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
	if err != nil {
		return 0, err
	}
	resp, err := hc.Do(req)
	if err != nil {
		return 0, err
	}
	_ = resp.Body.Close()
	return resp.StatusCode, nil
}

// controlPlaneMachine is the i-th control-plane machine of a cluster,
// booting with the CA material ca (empty: the cluster's keys).
func controlPlaneMachine(cluster string, i int, ca pki.KeyPair) Machine {
	return Machine{
		Name: fmt.Sprintf("%s-control-plane-%d", cluster, i), ControlPlane: true, IP: fmt.Sprintf("10.0.1.%d", 10+i),
		ProviderID: fmt.Sprintf("openstack:///0b9d5c3e-0000-4000-8000-0000000003%02d", i), KubeletVersion: "v1.33.4", CA: ca,
	}
}

// runningAPI is the cluster's API server now (nil: none).
func runningAPI(c *Cluster) controlPlane {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.api
}
