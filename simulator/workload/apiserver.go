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
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"github.com/openkeel/keel/internal/pki"
)

// apiServer is a workload cluster's real kube-apiserver process, started as
// `kubeadm init` starts it on the first control-plane machine: serving
// certificate and client CA from the cluster's CA (the Secret <cluster>-ca
// that Cluster API's kubeconfig is made from), service-account keys from
// <cluster>-sa, RBAC on. Its data lives in the manager's etcd under a prefix
// of its own. A control-plane machine that joins with other CA material
// (a CA rotation) replaces it with one started from that material
// (Cluster.restartLocked).
type apiServer struct {
	dir  string
	host string
	port int
	cmd  *exec.Cmd
	done chan struct{}
	err  error
}

type apiServerConfig struct {
	bin         string // kube-apiserver
	dir         string // certificates and log
	etcdURL     string
	etcdPrefix  string
	host        string // loopback address to listen on
	port        int
	ca          pki.KeyPair
	sa          pki.KeyPair
	serviceCIDR string
	kubeletPort int32
}

// apiServerMemoryLimit is each workload API server's GOMEMLIMIT.
const apiServerMemoryLimit = "160MiB"

// kubeletClient is the identity kube-apiserver presents to kubelets, as
// kubeadm names it (apiserver-kubelet-client).
const kubeletClient = "kube-apiserver-kubelet-client"

func startAPIServer(ctx context.Context, c apiServerConfig) (*apiServer, error) {
	if err := os.MkdirAll(c.dir, 0o700); err != nil {
		return nil, err
	}
	kc, err := writeCerts(c)
	if err != nil {
		return nil, err
	}
	p := func(n string) string { return filepath.Join(c.dir, n) }
	args := []string{
		"--advertise-address=" + c.host,
		"--bind-address=" + c.host,
		"--secure-port=" + strconv.Itoa(c.port),
		"--etcd-servers=" + c.etcdURL,
		"--etcd-prefix=" + c.etcdPrefix,
		"--tls-cert-file=" + p("apiserver.crt"),
		"--tls-private-key-file=" + p("apiserver.key"),
		"--client-ca-file=" + p("ca.crt"),
		"--kubelet-client-certificate=" + p("kubelet-client.crt"),
		"--kubelet-client-key=" + p("kubelet-client.key"),
		// Simulated kubelets all listen on the loopback; each Node names
		// it as its InternalDNS address (see node.go).
		"--kubelet-preferred-address-types=InternalDNS",
		"--service-account-issuer=https://kubernetes.default.svc.cluster.local",
		"--service-account-key-file=" + p("sa.pub"),
		"--service-account-signing-key-file=" + p("sa.key"),
		"--service-cluster-ip-range=" + c.serviceCIDR,
		"--authorization-mode=Node,RBAC",
		"--allow-privileged=true",
		"--enable-priority-and-fairness=false",
		"--profiling=false",
		// Each simulated cluster holds a handful of objects: serving watches
		// from etcd instead of a per-resource cache saves memory.
		"--watch-cache=false",
		"--cert-dir=" + c.dir,
	}
	logf, err := os.OpenFile(p("kube-apiserver.log"), os.O_CREATE|os.O_WRONLY|os.O_TRUNC, 0o600)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(c.bin, args...) //nolint:gosec // the binary is keel's own testbin build
	cmd.Stdout, cmd.Stderr = logf, logf
	// A soft memory limit: a simulated cluster's API server holds little,
	// and Go's default GC would let each grow to twice its live heap
	// (measured by hack/bench-real-clusters.sh).
	cmd.Env = append(os.Environ(), "GOMEMLIMIT="+apiServerMemoryLimit)
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("starting kube-apiserver: %w", err)
	}
	a := &apiServer{dir: c.dir, host: c.host, port: c.port, cmd: cmd, done: make(chan struct{})}
	go func() {
		a.err = cmd.Wait()
		_ = logf.Close()
		close(a.done)
	}()
	if err := a.waitReady(ctx, c.ca, kc); err != nil {
		a.stop()
		return nil, err
	}
	return a, nil
}

// writeCerts writes what kubeadm puts in /etc/kubernetes/pki for the API
// server: ca.crt is the whole CA bundle of the <cluster>-ca Secret (the
// --client-ca-file: clients signed by any CA in it are accepted), the
// serving and kubelet-client certificates are signed by its key with its
// first certificate as issuer (kubeadm writes the leaf alone). It returns
// the kubelet-client
// pair, which waitReady authenticates with.
func writeCerts(c apiServerConfig) (leaf, error) {
	serving, err := issue(c.ca, servingSpec(c.host))
	if err != nil {
		return leaf{}, err
	}
	kc, err := issue(c.ca, leafSpec{CommonName: kubeletClient, Organization: []string{"kubeadm:cluster-admins"}, Client: true})
	if err != nil {
		return leaf{}, err
	}
	files := map[string][]byte{
		"ca.crt": c.ca.Cert, "apiserver.crt": serving.Cert, "apiserver.key": serving.Key,
		"kubelet-client.crt": kc.Cert, "kubelet-client.key": kc.Key,
		"sa.pub": c.sa.Cert, "sa.key": c.sa.Key,
	}
	for name, data := range files {
		if err := os.WriteFile(filepath.Join(c.dir, name), data, 0o600); err != nil {
			return leaf{}, err
		}
	}
	return kc, nil
}

// waitReady polls /readyz with a client certificate of the cluster, as
// kubeadm's wait-control-plane phase does.
func (a *apiServer) waitReady(ctx context.Context, ca pki.KeyPair, client leaf) error {
	pool := x509.NewCertPool()
	pool.AppendCertsFromPEM(ca.Cert)
	cert, err := client.TLS()
	if err != nil {
		return err
	}
	hc := &http.Client{Timeout: 2 * time.Second, Transport: &http.Transport{TLSClientConfig: &tls.Config{RootCAs: pool, Certificates: []tls.Certificate{cert}, MinVersion: tls.VersionTLS12}}}
	defer hc.CloseIdleConnections()
	deadline := time.Now().Add(90 * time.Second)
	url := "https://" + net.JoinHostPort(a.host, strconv.Itoa(a.port)) + "/readyz"
	for {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		resp, err := hc.Do(req)
		if err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-a.done:
			return fmt.Errorf("kube-apiserver exited (%v); see %s", a.err, filepath.Join(a.dir, "kube-apiserver.log"))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(200 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			return errors.New("kube-apiserver not ready after 90s; see " + filepath.Join(a.dir, "kube-apiserver.log"))
		}
	}
}

func (a *apiServer) stop() {
	select {
	case <-a.done:
		return
	default:
	}
	_ = a.cmd.Process.Signal(os.Interrupt)
	select {
	case <-a.done:
	case <-time.After(10 * time.Second):
		_ = a.cmd.Process.Kill()
		<-a.done
	}
}

// servingSpec is kubeadm's apiserver certificate: CN kube-apiserver, the
// service names and the advertise address (KCP reads its expiry by CN).
func servingSpec(host string) leafSpec {
	return leafSpec{
		CommonName: "kube-apiserver",
		DNSNames:   []string{"localhost", "kubernetes", "kubernetes.default", "kubernetes.default.svc", "kubernetes.default.svc.cluster.local"},
		IPs:        servingIPs(host),
		Server:     true,
	}
}

// servingIPs are the API server certificate's IP SANs: 127.0.0.1 (the
// simulator's own clients, port-forwards) and the address it listens on.
func servingIPs(host string) []net.IP {
	ips := []net.IP{net.ParseIP("127.0.0.1")}
	if ip := net.ParseIP(host); ip != nil && !ip.Equal(ips[0]) {
		ips = append(ips, ip)
	}
	return ips
}

// freePort asks the kernel for a loopback port that is free now, for a
// process that binds it at once (the real API servers' etcd, which retries
// on a port taken meanwhile). Workload endpoints are reserved apart
// (Manager.reserveEndpointLocked).
func freePort() (int, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer ln.Close()
	return ln.Addr().(*net.TCPAddr).Port, nil
}
