package workload

import (
	"context"
	"crypto"
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
	"github.com/openkeel/keel/simulator/workload/lightapi"
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
	// reserved holds a light cluster's endpoint from registration until
	// its API server first serves on it (Manager.reserveEndpointLocked).
	reserved net.Listener

	// store holds a light cluster's objects (Options.APIServers); it
	// outlives its API server's restarts, as the etcd data does.
	store *lightapi.Store

	mu  sync.Mutex
	api controlPlane
	// ca is the CA material api was started with (a control-plane
	// machine's, see Machine.CA): one that boots with other material
	// restarts it.
	ca pki.KeyPair
	// restarts counts the API server's restarts with new CA material
	// (logged, and what the tests check).
	restarts int
	client   client.Client
	config   *rest.Config
	nodes    map[string]Machine
	// rolledOut is when Sync last played the rollouts (rollOut).
	rolledOut time.Time
	// synced is what the last complete Sync of a light cluster saw (quiet).
	synced syncMark
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
// a running API server: a new Kubernetes CA reaches it only with a
// control-plane machine that boots with it (Machine.CA, restartLocked), as
// in a CA rotation; the etcd CA and service-account keys are never
// rotated.
func (c *Cluster) SetKeys(ca, etcdCA, sa pki.KeyPair) error {
	if err := checkCA(ca); err != nil {
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

// startAPIServerLocked runs `kubeadm init`'s control-plane phase with the
// CA material ca (a bundle during a CA rotation, see writeCerts), and makes
// the simulator's admin client from it.
func (c *Cluster) startAPIServerLocked(ctx context.Context, ca pki.KeyPair) error {
	if c.api != nil {
		return nil
	}
	if len(ca.Cert) == 0 {
		return fmt.Errorf("workload cluster %s: no keys yet (SetKeys)", c.spec.Name)
	}
	api, err := c.startControlPlane(ctx, ca)
	if err != nil {
		return fmt.Errorf("workload cluster %s: %w", c.spec.Name, err)
	}
	cfg, cl, err := c.adminClient(ca)
	if err != nil {
		api.stop()
		return err
	}
	c.api, c.ca, c.config, c.client = api, ca, cfg, cl
	return nil
}

// controlPlane is a running workload API server, real or light.
type controlPlane interface{ stop() }

// startControlPlane starts the API server the manager's mode asks for.
func (c *Cluster) startControlPlane(ctx context.Context, ca pki.KeyPair) (controlPlane, error) {
	if c.store != nil {
		ln := c.reserved
		a, err := startLightAPIServer(c.apiServerConfig(ca), ln, c.store, c.m.kubelet, c.m.o.Log.WithValues("cluster", c.spec.Name))
		if err == nil {
			c.reserved = nil // the server owns it now, and closes it when it stops
		}
		return a, err
	}
	return startAPIServer(ctx, c.apiServerConfig(ca))
}

// apiServerConfig is where and how the cluster's API server runs: always
// the same host, port, folder and etcd prefix, so that a restarted one
// serves the same endpoint and data.
func (c *Cluster) apiServerConfig(ca pki.KeyPair) apiServerConfig {
	return apiServerConfig{
		bin:         filepath.Join(c.m.o.BinDir, "kube-apiserver"),
		dir:         filepath.Join(c.m.dir, "clusters", dirName(c.spec.Name)),
		etcdURL:     c.m.etcdURL,
		etcdPrefix:  "/workload/" + dirName(c.spec.Name),
		host:        c.host(),
		port:        c.port,
		ca:          ca,
		sa:          c.spec.ServiceAccount,
		serviceCIDR: orDefault(c.spec.ServiceCIDR, "10.96.0.0/12"),
		kubeletPort: c.m.kubelet.port,
	}
}

// adminClient is the simulator's own system:masters identity, as a
// kubeadm admin.conf made from the CA material: it trusts the whole bundle
// and its certificate is signed by the signing key.
func (c *Cluster) adminClient(ca pki.KeyPair) (*rest.Config, client.Client, error) {
	admin, err := issue(ca, leafSpec{CommonName: "keel-simulator", Organization: []string{"system:masters"}, Client: true})
	if err != nil {
		return nil, nil, err
	}
	cfg := &rest.Config{
		Host:            "https://" + net.JoinHostPort(c.host(), strconv.Itoa(c.port)),
		TLSClientConfig: rest.TLSClientConfig{CAData: ca.Cert, CertData: admin.Cert, KeyData: admin.Key},
		QPS:             50, Burst: 100,
	}
	cl, err := client.New(cfg, client.Options{Scheme: scheme.Scheme})
	if err != nil {
		return nil, nil, err
	}
	return cfg, cl, nil
}

// restartLocked replaces the running API server with one started from new
// CA material, as a control-plane machine that joined with it replaces the
// old ones behind the load balancer while Cluster API rolls the control
// plane. Nothing in this package keeps a client across calls (Boot, Sync
// and Shutdown take c.client each time), so the kubelets carry on with the
// new admin client. If the new server does not start, the old material is
// started again: the cluster stays up, as its other machines would keep it.
// All of it under the cluster's lock: Client, Running and other boots wait
// for the new server, and boots with the same material find it running.
func (c *Cluster) restartLocked(ctx context.Context, ca pki.KeyPair) error {
	if err := checkCA(ca); err != nil {
		return fmt.Errorf("workload cluster %s: CA: %w", c.spec.Name, err)
	}
	old := c.ca
	c.restarts++
	c.m.o.Log.Info("restarting a workload API server with new CA material", "cluster", c.spec.Name, "restarts", c.restarts)
	c.api.stop()
	c.api, c.client, c.config = nil, nil, nil
	err := c.startAPIServerLocked(ctx, ca)
	if err != nil {
		if again := c.startAPIServerLocked(ctx, old); again != nil {
			return errors.Join(err, again)
		}
	}
	return err
}

// checkCA validates CA material as kubeadm reads it: every certificate of
// the bundle parses, and the key signs for the first one.
func checkCA(ca pki.KeyPair) error {
	if _, err := parseBundle(ca.Cert); err != nil {
		return err
	}
	first, key, err := ca.Parse()
	if err != nil {
		return err
	}
	if pub, ok := first.PublicKey.(interface{ Equal(crypto.PublicKey) bool }); !ok || !pub.Equal(key.Public()) {
		return errors.New("the key does not match the bundle's first certificate")
	}
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
	c.api, c.ca, c.client, c.config = nil, pki.KeyPair{}, nil, nil
	if c.reserved != nil { // never booted
		_ = c.reserved.Close()
		c.reserved = nil
	}
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
