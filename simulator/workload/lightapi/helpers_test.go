package lightapi

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"encoding/pem"
	"net/http"
	"net/http/httptest"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/dynamic"
	"k8s.io/client-go/kubernetes"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/pki"
)

// testCA is the cluster CA every test server trusts for client certificates.
var testCA = func() *pki.ClusterPKI {
	p, err := pki.Generate("lightapi-test", time.Now())
	if err != nil {
		panic(err)
	}
	return p
}()

// server is one workload cluster served over TLS as keel serves it.
type server struct {
	store *Store
	srv   *httptest.Server
	cfg   *rest.Config // an admin's client certificate
}

func newServer(t *testing.T) *server {
	t.Helper()
	return newServerFor(t, NewStore())
}

func newServerFor(t *testing.T, s *Store) *server {
	t.Helper()
	return newServerWith(t, s, func(h http.Handler) http.Handler { return h })
}

// newServerWith serves s through wrap, which may observe requests.
func newServerWith(t *testing.T, s *Store, wrap func(http.Handler) http.Handler) *server {
	t.Helper()
	srv := httptest.NewUnstartedServer(wrap(NewHandler(s, Options{Log: logr.Discard(), BookmarkInterval: 50 * time.Millisecond})))
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(testCA.CA.Cert)
	srv.TLS = &tls.Config{ClientAuth: tls.VerifyClientCertIfGiven, ClientCAs: pool}
	srv.StartTLS()
	t.Cleanup(func() {
		srv.CloseClientConnections() // open watches
		srv.Close()
	})
	cert, key, err := pki.IssueClient(testCA.CA, "kubernetes-admin", []string{"system:masters"}, time.Now())
	if err != nil {
		t.Fatal(err)
	}
	serverCA := pem.EncodeToMemory(&pem.Block{Type: "CERTIFICATE", Bytes: srv.Certificate().Raw})
	cfg := &rest.Config{Host: srv.URL, QPS: -1, TLSClientConfig: rest.TLSClientConfig{CAData: serverCA, CertData: cert, KeyData: key}}
	return &server{store: s, srv: srv, cfg: cfg}
}

func (s *server) clientset(t *testing.T) *kubernetes.Clientset {
	t.Helper()
	cs, err := kubernetes.NewForConfig(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return cs
}

// client is controller-runtime's client, with its discovery-backed
// RESTMapper.
func (s *server) client(t *testing.T) client.Client {
	t.Helper()
	c, err := client.New(s.cfg, client.Options{Scheme: builtinScheme})
	if err != nil {
		t.Fatal(err)
	}
	return c
}

func (s *server) dynamic(t *testing.T) *dynamic.DynamicClient {
	t.Helper()
	d, err := dynamic.NewForConfig(s.cfg)
	if err != nil {
		t.Fatal(err)
	}
	return d
}

func testContext(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// stopWatches ends every open watch, as a server restart or a load
// balancer would: clients watch again from the last version they saw.
func (s *Store) stopWatches() {
	s.mu.Lock()
	defer s.mu.Unlock()
	for w := range s.watchers {
		w.stop()
		delete(s.watchers, w)
	}
}

// waitFor polls cond until it holds or the test's context ends.
func waitFor(ctx context.Context, t *testing.T, what string, cond func() bool) {
	t.Helper()
	for !cond() {
		select {
		case <-ctx.Done():
			t.Fatalf("timed out waiting for %s", what)
		case <-time.After(10 * time.Millisecond):
		}
	}
}
