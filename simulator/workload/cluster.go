package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"path/filepath"
	"strconv"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/pki"
)

// ClusterSpec is what a workload cluster's control plane is made from: the
// key material Cluster API (or keel) put in the <cluster>-ca, -etcd and -sa
// Secrets, and the service CIDR of the cluster network.
type ClusterSpec struct {
	// Name identifies the cluster (namespace/name of the CAPI Cluster).
	Name string
	// CA is the Kubernetes CA; EtcdCA the etcd CA.
	CA, EtcdCA pki.KeyPair
	// ServiceAccount is the service-account key pair (Cert: PEM public key).
	ServiceAccount pki.KeyPair
	// ServiceCIDR defaults to kubeadm's 10.96.0.0/12.
	ServiceCIDR string
	// Port is the API server's port on the loopback; 0 picks a free one.
	// A restarted simulator passes the endpoint it reported before.
	Port int
	// Host is the loopback address the API server listens on; default
	// 127.0.0.1. With the real CAPO it is the floating IP of the cluster's
	// API load balancer (the test cloud's floating IPs are in 127.0.0.0/8),
	// where CAPO's controlPlaneEndpoint points.
	Host string
}

// Cluster is one simulated workload cluster: a real kube-apiserver started
// when its first control-plane machine boots, simulated kubelets and etcd
// members for its machines.
type Cluster struct {
	m    *Manager
	spec ClusterSpec
	port int
	etcd *etcdCluster

	mu     sync.Mutex
	api    *apiServer
	client client.Client
	config *rest.Config
	nodes  map[string]Machine
	// rolledOut is when Sync last played the rollouts (rollOut).
	rolledOut time.Time
}

// Name is the cluster's name (namespace/name).
func (c *Cluster) Name() string { return c.spec.Name }

// Endpoint is the control-plane endpoint: what CAPO reports as the API load
// balancer's address, known before any machine exists.
func (c *Cluster) Endpoint() (host string, port int32) { return c.host(), int32(c.port) }

// host is where the API server listens.
func (c *Cluster) host() string {
	if c.spec.Host != "" {
		return c.spec.Host
	}
	return "127.0.0.1"
}

// Running reports whether the cluster's API server is up.
func (c *Cluster) Running() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.api != nil
}

// Client is an admin client of the workload cluster (nil before the first
// control-plane machine booted).
func (c *Cluster) Client() client.Client {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.client
}

// RESTConfig is the admin config of the workload cluster, nil before boot.
func (c *Cluster) RESTConfig() *rest.Config {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.config == nil {
		return nil
	}
	return rest.CopyConfig(c.config)
}

// SetKeys gives the cluster the key material kubeadm finds on its first
// control-plane machine (from the <cluster>-ca, -etcd and -sa Secrets). It
// must be called before that machine boots; later calls change nothing for
// a running API server, as replacing a cluster's CA does not either.
func (c *Cluster) SetKeys(ca, etcdCA, sa pki.KeyPair) error {
	if _, _, err := ca.Parse(); err != nil {
		return fmt.Errorf("workload cluster %s: CA: %w", c.spec.Name, err)
	}
	if _, _, err := etcdCA.Parse(); err != nil {
		return fmt.Errorf("workload cluster %s: etcd CA: %w", c.spec.Name, err)
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.api == nil {
		c.spec.CA, c.spec.EtcdCA, c.spec.ServiceAccount = ca, etcdCA, sa
		c.etcd.setCA(etcdCA)
	}
	return nil
}

// startAPIServerLocked runs `kubeadm init`'s control-plane phase.
func (c *Cluster) startAPIServerLocked(ctx context.Context) error {
	if c.api != nil {
		return nil
	}
	if len(c.spec.CA.Cert) == 0 {
		return fmt.Errorf("workload cluster %s: no keys yet (SetKeys)", c.spec.Name)
	}
	cidr := c.spec.ServiceCIDR
	if cidr == "" {
		cidr = "10.96.0.0/12"
	}
	api, err := startAPIServer(ctx, apiServerConfig{
		bin:         filepath.Join(c.m.o.BinDir, "kube-apiserver"),
		dir:         filepath.Join(c.m.dir, "clusters", dirName(c.spec.Name)),
		etcdURL:     c.m.etcdURL,
		etcdPrefix:  "/workload/" + dirName(c.spec.Name),
		host:        c.host(),
		port:        c.port,
		ca:          c.spec.CA,
		sa:          c.spec.ServiceAccount,
		serviceCIDR: cidr,
		kubeletPort: c.m.kubelet.port,
	})
	if err != nil {
		return fmt.Errorf("workload cluster %s: %w", c.spec.Name, err)
	}
	admin, err := issue(c.spec.CA, leafSpec{CommonName: "keel-simulator", Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		api.stop()
		return err
	}
	cfg := &rest.Config{
		Host:            "https://" + net.JoinHostPort(c.host(), strconv.Itoa(c.port)),
		TLSClientConfig: rest.TLSClientConfig{CAData: c.spec.CA.Cert, CertData: admin.Cert, KeyData: admin.Key},
		QPS:             50, Burst: 100,
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		api.stop()
		return err
	}
	c.api, c.config, c.client = api, cfg, cl
	return nil
}

// forward serves a port-forward to one of this cluster's static pods.
func (c *Cluster) forward(ctx context.Context, component, node string, port int32, stream io.ReadWriteCloser) error {
	switch component {
	case "etcd":
		if port != 2379 {
			return fmt.Errorf("etcd-%s: nothing listens on port %d", node, port)
		}
		return c.etcd.serve(ctx, node, stream)
	case "kube-apiserver":
		// All control-plane machines of a simulated cluster share its one
		// API server process.
		return pipe(ctx, stream, net.JoinHostPort(c.host(), strconv.Itoa(c.port)))
	}
	return fmt.Errorf("%s-%s: port-forwarding to %s is not simulated", component, node, component)
}

func (c *Cluster) stop() {
	c.etcd.stopAll()
	c.mu.Lock()
	api := c.api
	c.api, c.client, c.config = nil, nil, nil
	c.mu.Unlock()
	if api != nil {
		api.stop()
	}
}

// ErrNotInitialized is returned for a join before `kubeadm init` ran: the
// cluster's first control-plane machine has not booted yet.
var ErrNotInitialized = errors.New("the cluster's first control-plane machine has not booted yet")

// nodeObject fetches a Node of the cluster.
func (c *Cluster) nodeObject(ctx context.Context, name string) (*corev1.Node, error) {
	cl := c.Client()
	if cl == nil {
		return nil, ErrNotInitialized
	}
	n := &corev1.Node{}
	return n, cl.Get(ctx, client.ObjectKey{Name: name}, n)
}
