package workload

import (
	"context"
	"crypto/tls"
	"crypto/x509"
	"errors"
	"fmt"
	"net"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"time"

	"github.com/go-logr/logr"

	"github.com/openkeel/keel/simulator/workload/lightapi"
)

// lightAPIServer is a workload cluster's API server served in keel's own
// process by lightapi: an HTTPS listener on the cluster's endpoint, with
// the same certificates a real kube-apiserver gets from kubeadm (writeCerts),
// over the cluster's in-memory store. It costs kilobytes where a real
// kube-apiserver costs about 230 MB, which is what lets one machine
// simulate a fleet (docs/performance.md).
type lightAPIServer struct {
	srv  *http.Server
	done chan struct{}
}

// startLightAPIServer serves store on c's endpoint, on ln when the
// endpoint's listener is held already (else it listens). Port-forwards to a
// pod (KubeadmControlPlane's etcd checks) are answered here with the
// simulated kubelets' streaming handler: the real API server would proxy
// them to the pod's kubelet, which is the same code in this process.
func startLightAPIServer(c apiServerConfig, ln net.Listener, store *lightapi.Store, k *kubeletServer, log logr.Logger) (*lightAPIServer, error) {
	tc, err := lightTLS(c)
	if err != nil {
		return nil, err
	}
	if ln == nil {
		if ln, err = net.Listen("tcp", net.JoinHostPort(c.host, strconv.Itoa(c.port))); err != nil {
			return nil, fmt.Errorf("workload API server on %s:%d: %w", c.host, c.port, err)
		}
	}
	mux := http.NewServeMux()
	mux.Handle("/api/v1/namespaces/{namespace}/pods/{pod}/portforward", authenticated(http.HandlerFunc(k.portForward)))
	mux.Handle("/", lightapi.NewHandler(store, lightapi.Options{Log: log}))
	a := &lightAPIServer{
		srv:  &http.Server{Handler: verifyClients(tc.ClientCAs, mux), TLSConfig: tc, ReadHeaderTimeout: 10 * time.Second},
		done: make(chan struct{}),
	}
	go func() {
		defer close(a.done)
		// ServeTLS offers HTTP/2, as kube-apiserver does: each client's
		// watches share one connection instead of one each.
		if err := a.srv.ServeTLS(ln, "", ""); err != nil && !errors.Is(err, http.ErrServerClosed) {
			log.Error(err, "workload API server stopped", "endpoint", ln.Addr().String())
		}
	}()
	return a, nil
}

// lightTLS is the serving side kubeadm gives an API server: a certificate
// signed by the cluster's CA, and client certificates verified against the
// whole CA bundle (--client-ca-file), so that Cluster API's kubeconfig and
// `openstack coe cluster config`'s work unchanged.
func lightTLS(c apiServerConfig) (*tls.Config, error) {
	serving, err := issue(c.ca, servingSpec(c.host))
	if err != nil {
		return nil, err
	}
	cert, err := serving.TLS()
	if err != nil {
		return nil, err
	}
	pool := x509.NewCertPool()
	if !pool.AppendCertsFromPEM(c.ca.Cert) {
		return nil, errors.New("the cluster's CA bundle holds no certificate")
	}
	return &tls.Config{
		Certificates: []tls.Certificate{cert}, ClientCAs: pool,
		// Asked, not verified by TLS: a certificate of another CA makes
		// the request anonymous (401 but on /healthz, /readyz, /version), as
		// kube-apiserver's x509 authenticator does, not a failed handshake.
		ClientAuth: tls.RequestClientCert, MinVersion: tls.VersionTLS12,
	}, nil
}

// verifyClients verifies the client certificate against the CA bundle and
// records the chains where lightapi and authenticated look for them.
func verifyClients(pool *x509.CertPool, h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS != nil && len(r.TLS.PeerCertificates) > 0 {
			st := *r.TLS
			st.VerifiedChains = clientChains(pool, st.PeerCertificates)
			r = r.Clone(r.Context())
			r.TLS = &st
		}
		h.ServeHTTP(w, r)
	})
}

func clientChains(pool *x509.CertPool, certs []*x509.Certificate) [][]*x509.Certificate {
	inter := x509.NewCertPool()
	for _, c := range certs[1:] {
		inter.AddCert(c)
	}
	chains, err := certs[0].Verify(x509.VerifyOptions{Roots: pool, Intermediates: inter, KeyUsages: []x509.ExtKeyUsage{x509.ExtKeyUsageClientAuth}})
	if err != nil {
		return nil
	}
	return chains
}

// authenticated refuses a request without a client certificate the
// cluster's CA signed, as the API server's authentication does.
func authenticated(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.TLS == nil || len(r.TLS.VerifiedChains) == 0 {
			http.Error(w, "Unauthorized", http.StatusUnauthorized)
			return
		}
		h.ServeHTTP(w, r)
	})
}

func (a *lightAPIServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	// Watches are long-lived requests Shutdown would wait out: close them.
	if err := a.srv.Shutdown(ctx); err != nil {
		_ = a.srv.Close()
	}
	<-a.done
}

// snapshotFile is where a light cluster's objects are kept across keel
// restarts (a real cluster's state outlives the management cluster's
// controllers; the real API servers keep theirs in the workload etcd).
func (m *Manager) snapshotFile(name string) string {
	return filepath.Join(m.dir, "clusters", dirName(name), "objects.json")
}

// watchHistory is how many events each light cluster keeps for watches
// to resume from: kube-apiserver's default watch cache size, 100 per
// resource, over the few kinds that change often here (Nodes, their
// Leases, static pods). Old versions are held by it, so a thousand
// clusters at lightapi's default of 1,000 would hold a thousand versions
// each.
const watchHistory = 200

// loadStore gives a light cluster its store, as it was at keel's last stop.
func (m *Manager) loadStore(name string) (*lightapi.Store, error) {
	s := lightapi.NewStore()
	s.SetHistorySize(watchHistory)
	f, err := os.Open(m.snapshotFile(name))
	if errors.Is(err, os.ErrNotExist) {
		return s, nil
	}
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if err := s.Restore(f); err != nil {
		return nil, fmt.Errorf("workload cluster %s: restoring %s: %w", name, f.Name(), err)
	}
	return s, nil
}

// saveStore writes a light cluster's objects for the next start; written
// to a temporary file and renamed, so a crash mid-write keeps the last one.
func (m *Manager) saveStore(name string, s *lightapi.Store) error {
	path := m.snapshotFile(name)
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return err
	}
	f, err := os.CreateTemp(filepath.Dir(path), "objects-*.json")
	if err != nil {
		return err
	}
	if err := s.Snapshot(f); err != nil {
		_ = f.Close()
		_ = os.Remove(f.Name())
		return err
	}
	if err := f.Close(); err != nil {
		_ = os.Remove(f.Name())
		return err
	}
	return os.Rename(f.Name(), path)
}
