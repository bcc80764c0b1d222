package workload

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"strings"
	"time"

	"k8s.io/cri-streaming/pkg/streaming/portforward"
)

// kubeletServer is the one HTTPS endpoint every simulated kubelet of every
// workload cluster shares (each Node's kubelet endpoint points at it). A
// real kube-apiserver reaches a pod's port through its node's kubelet: that
// is how Cluster API's KubeadmControlPlane controller talks to the etcd and
// kube-apiserver static pods of the control-plane machines. This server
// answers those port-forwards with the kubelet's own streaming library.
type kubeletServer struct {
	srv      *http.Server
	listener net.Listener
	port     int32
	forward  func(ctx context.Context, pod string, port int32, stream io.ReadWriteCloser) error
}

// streamTimeouts are the kubelet's defaults (--streaming-connection-idle-timeout
// is 4h there; simulated streams are short-lived, so less).
const (
	streamIdleTimeout     = 30 * time.Minute
	streamCreationTimeout = 30 * time.Second
)

func startKubelet(forward func(ctx context.Context, pod string, port int32, stream io.ReadWriteCloser) error) (*kubeletServer, error) {
	ca, err := selfSigned("keel-simulated-kubelet-ca")
	if err != nil {
		return nil, err
	}
	serving, err := issue(ca, leafSpec{CommonName: "keel-simulated-kubelet", IPs: []net.IP{net.ParseIP("127.0.0.1")}, Server: true})
	if err != nil {
		return nil, err
	}
	cert, err := serving.TLS()
	if err != nil {
		return nil, err
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	k := &kubeletServer{listener: ln, port: int32(ln.Addr().(*net.TCPAddr).Port), forward: forward}
	mux := http.NewServeMux()
	mux.HandleFunc("/portForward/{namespace}/{pod}", k.portForward)
	mux.HandleFunc("/portForward/{namespace}/{pod}/{uid}", k.portForward)
	mux.HandleFunc("/healthz", func(w http.ResponseWriter, _ *http.Request) { _, _ = w.Write([]byte("ok")) })
	k.srv = &http.Server{
		Handler:           mux,
		ReadHeaderTimeout: 10 * time.Second,
		// Only kube-apiservers call: they present their kubelet client
		// certificate, each signed by its own cluster's CA.
		TLSConfig: &tls.Config{Certificates: []tls.Certificate{cert}, ClientAuth: tls.RequireAnyClientCert, MinVersion: tls.VersionTLS12},
	}
	go func() { _ = k.srv.ServeTLS(ln, "", "") }()
	return k, nil
}

func (k *kubeletServer) portForward(w http.ResponseWriter, r *http.Request) {
	if r.PathValue("namespace") != "kube-system" {
		http.Error(w, "only kube-system static pods run on simulated machines", http.StatusNotFound)
		return
	}
	pod := r.PathValue("pod")
	opts, err := portforward.NewV4Options(r)
	if err != nil {
		http.Error(w, err.Error(), http.StatusBadRequest)
		return
	}
	portforward.ServePortForward(w, r, forwarder(func(ctx context.Context, name string, _ string, port int32, stream io.ReadWriteCloser) error {
		return k.forward(ctx, name, port, stream)
	}), pod, r.PathValue("uid"), opts, streamIdleTimeout, streamCreationTimeout, portforward.SupportedProtocols)
}

type forwarder func(ctx context.Context, name, uid string, port int32, stream io.ReadWriteCloser) error

func (f forwarder) PortForward(ctx context.Context, name, uid string, port int32, stream io.ReadWriteCloser) error {
	return f(ctx, name, uid, port, stream)
}

func (k *kubeletServer) stop() {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	_ = k.srv.Shutdown(ctx)
}

// splitStaticPod splits a kubeadm static pod name (<component>-<node>) into
// its component and node.
func splitStaticPod(pod string) (component, node string, err error) {
	for _, c := range []string{"etcd", "kube-apiserver", "kube-controller-manager", "kube-scheduler"} {
		if n, ok := strings.CutPrefix(pod, c+"-"); ok && n != "" {
			return c, n, nil
		}
	}
	return "", "", fmt.Errorf("%s is not a static pod of a simulated control-plane machine", pod)
}

// pipe copies both ways between a port-forward stream and a TCP server
// until either side is done.
func pipe(ctx context.Context, stream io.ReadWriteCloser, addr string) error {
	var d net.Dialer
	c, err := d.DialContext(ctx, "tcp", addr)
	if err != nil {
		return err
	}
	defer c.Close()
	errc := make(chan error, 2)
	go func() { _, err := io.Copy(c, stream); errc <- err }()
	go func() { _, err := io.Copy(stream, c); errc <- err }()
	select {
	case err = <-errc:
	case <-ctx.Done():
		err = ctx.Err()
	}
	_ = stream.Close()
	if errors.Is(err, net.ErrClosed) || errors.Is(err, io.EOF) {
		return nil
	}
	return err
}
