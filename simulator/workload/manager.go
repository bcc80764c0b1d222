// Package workload runs the simulated workload clusters of keel's
// infrastructure simulator: what Cluster API's controllers talk to once a
// machine has "booted".
//
// Each workload cluster gets an API server serving with the cluster's own
// CA, so that the kubeconfig Cluster API writes works unchanged. Two kinds
// (Options.APIServers): light, the default, is lightapi served from keel's
// process, kilobytes per cluster, so that a fleet of a thousand fits on one
// machine; real is a real kube-apiserver per cluster (the binary keel
// already builds for its management cluster, about 230 MB each) over one
// etcd owned by the Manager, each cluster under its own prefix, for what
// needs every API a real one has. What cannot run here is simulated, and
// only that: the kubelets (Nodes registered as `kubeadm init/join` would,
// control-plane static pods, Ready only once a CNI is installed, a
// providerID only once the OpenStack cloud controller manager is) and the
// stacked etcd members that KubeadmControlPlane inspects through
// port-forwards.
//
// Why not Cluster API's in-memory server (sigs.k8s.io/cluster-api/test
// .../inmemory/pkg/server) for the light kind? It cannot be compiled with
// the etcd v3.7 API that k8s.io/apiserver v0.37 (required by Flux's
// libraries) brings, and its module's own dependencies are not all served
// here, so it could not even be built as a separate binary. And it serves a
// fixed list of resource kinds: the addons a ClusterResourceSet applies
// (StorageClasses, StatefulSets, custom resources of the CRDs it brings)
// would be refused, and Cluster API would retry them forever. lightapi
// stores any kind, and serves the kinds a CRD defines once it is created.
package workload

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/go-logr/logr"
)

// Options configure a Manager.
type Options struct {
	// BinDir holds kube-apiserver and etcd (mgmtcluster/binaries.Ensure).
	BinDir string
	// DataDir keeps the workload clusters' etcd data and API server files
	// across restarts; empty means a temporary folder removed at Stop.
	DataDir string
	// APIServers is what serves each workload cluster's API: LightAPIServers
	// (the default) or RealAPIServers.
	APIServers APIServers
	Log        logr.Logger
}

// APIServers says what serves the workload clusters' Kubernetes API.
type APIServers string

const (
	// LightAPIServers serves every workload cluster from keel's process
	// (lightapi): kilobytes per cluster, so a fleet fits on one machine.
	LightAPIServers APIServers = "light"
	// RealAPIServers runs a real kube-apiserver per workload cluster (about
	// 230 MB each) over one shared etcd: every API the real one has, for
	// what the light one does not serve (docs/simulator.md).
	RealAPIServers APIServers = "real"
)

// ParseAPIServers reads the --workload-apiservers flag's value.
func ParseAPIServers(s string) (APIServers, error) {
	switch APIServers(s) {
	case "", LightAPIServers:
		return LightAPIServers, nil
	case RealAPIServers:
		return RealAPIServers, nil
	}
	return "", fmt.Errorf("workload API servers %q: allowed are %q and %q", s, LightAPIServers, RealAPIServers)
}

func (o Options) light() bool { return o.APIServers != RealAPIServers }

// Manager owns the workload clusters, their shared etcd and the simulated
// kubelets' endpoint.
type Manager struct {
	o       Options
	dir     string
	temp    bool
	etcdURL string
	etcd    *exec.Cmd
	etcdErr chan error
	kubelet *kubeletServer

	mu       sync.Mutex
	clusters map[string]*Cluster
	nodes    map[string]*Cluster // node name → cluster, for port-forwards
}

// Start starts the shared etcd and the kubelet endpoint.
func Start(ctx context.Context, o Options) (*Manager, error) {
	m := &Manager{o: o, dir: o.DataDir, clusters: map[string]*Cluster{}, nodes: map[string]*Cluster{}}
	if m.dir == "" {
		d, err := os.MkdirTemp("", "keel-workload-")
		if err != nil {
			return nil, err
		}
		m.dir, m.temp = d, true
	}
	if !o.light() {
		if err := m.startEtcd(ctx); err != nil {
			m.cleanup()
			return nil, err
		}
	}
	k, err := startKubelet(m.forward)
	if err != nil {
		m.Stop()
		return nil, err
	}
	m.kubelet = k
	return m, nil
}

// errEtcdExited: the workload clusters' etcd exited before it was healthy.
var errEtcdExited = errors.New("the workload clusters' etcd exited")

// startEtcd runs one etcd for every workload cluster's API server. Its
// ports are chosen free before etcd binds them, so another process can
// take one in between (a loaded test machine does): etcd then exits at
// once, and new ports are tried, three times in all.
func (m *Manager) startEtcd(ctx context.Context) error {
	var err error
	for range 3 {
		if err = m.startEtcdOnce(ctx); !errors.Is(err, errEtcdExited) {
			return err
		}
	}
	return err
}

// startEtcdOnce starts that etcd on two ports free now.
func (m *Manager) startEtcdOnce(ctx context.Context) error {
	client, err := freePort()
	if err != nil {
		return err
	}
	peer, err := freePort()
	if err != nil {
		return err
	}
	data := filepath.Join(m.dir, "etcd")
	if err := os.MkdirAll(data, 0o700); err != nil {
		return err
	}
	m.etcdURL = "http://127.0.0.1:" + strconv.Itoa(client)
	logf, err := os.OpenFile(filepath.Join(m.dir, "etcd.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	cmd := exec.Command(filepath.Join(m.o.BinDir, "etcd"), //nolint:gosec // keel's own testbin build
		"--name=workload", "--data-dir="+data,
		"--listen-client-urls="+m.etcdURL, "--advertise-client-urls="+m.etcdURL,
		"--listen-peer-urls=http://127.0.0.1:"+strconv.Itoa(peer),
		"--initial-advertise-peer-urls=http://127.0.0.1:"+strconv.Itoa(peer),
		"--initial-cluster=workload=http://127.0.0.1:"+strconv.Itoa(peer),
		"--unsafe-no-fsync", "--quota-backend-bytes=8589934592")
	cmd.Stdout, cmd.Stderr = logf, logf
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return fmt.Errorf("starting the workload clusters' etcd: %w", err)
	}
	m.etcd, m.etcdErr = cmd, make(chan error, 1)
	go func() { m.etcdErr <- cmd.Wait(); _ = logf.Close() }()
	return m.waitEtcd(ctx)
}

func (m *Manager) waitEtcd(ctx context.Context) error {
	deadline := time.Now().Add(30 * time.Second)
	for time.Now().Before(deadline) {
		if err := httpGetOK(ctx, m.etcdURL+"/health"); err == nil {
			return nil
		}
		select {
		case err := <-m.etcdErr:
			return fmt.Errorf("%w: %v (see %s)", errEtcdExited, err, filepath.Join(m.dir, "etcd.log"))
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
	return errors.New("the workload clusters' etcd did not become healthy within 30s")
}

// Cluster returns a registered cluster, or nil.
func (m *Manager) Cluster(name string) *Cluster {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.clusters[name]
}

// EnsureCluster registers a workload cluster and reserves its endpoint, as
// CAPO's load balancer exists before any server; its API server starts when
// its first control-plane machine boots. Its keys may come later (SetKeys).
func (m *Manager) EnsureCluster(spec ClusterSpec) (*Cluster, error) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if c := m.clusters[spec.Name]; c != nil {
		return c, nil
	}
	c := &Cluster{m: m, spec: spec, port: spec.Port, etcd: newEtcdCluster(spec.Name), nodes: map[string]Machine{}}
	if c.port == 0 {
		if err := m.reserveEndpointLocked(c); err != nil {
			return nil, err
		}
	}
	if m.o.light() {
		s, err := m.loadStore(spec.Name)
		if err != nil {
			return nil, err
		}
		c.store = s
	}
	if len(spec.CA.Cert) > 0 {
		if err := c.SetKeys(spec.CA, spec.EtcdCA, spec.ServiceAccount); err != nil {
			return nil, err
		}
	}
	m.clusters[spec.Name] = c
	return c, nil
}

// reserveEndpointLocked chooses c's port, as a load balancer's address is
// known before the API server behind it runs. A light API server gets the
// listener itself, held from now on: a port only looked up and let go
// could be handed to another cluster (or any socket) before the first
// control-plane machine boots, and two clusters once shared an endpoint
// at 100 clusters (docs/performance.md). A real kube-apiserver binds the
// port itself; it is at least never one another cluster was given.
func (m *Manager) reserveEndpointLocked(c *Cluster) error {
	for range 16 {
		ln, err := net.Listen("tcp", net.JoinHostPort(c.host(), "0"))
		if err != nil {
			return fmt.Errorf("workload cluster %s: reserving its endpoint: %w", c.spec.Name, err)
		}
		port := ln.Addr().(*net.TCPAddr).Port
		if m.portTakenLocked(port) {
			_ = ln.Close()
			continue
		}
		c.port = port
		if m.o.light() {
			c.reserved = ln
		} else {
			_ = ln.Close()
		}
		return nil
	}
	return fmt.Errorf("workload cluster %s: no loopback port free for its endpoint", c.spec.Name)
}

// portTakenLocked reports whether a registered cluster has port.
func (m *Manager) portTakenLocked(port int) bool {
	for _, c := range m.clusters {
		if c.port == port {
			return true
		}
	}
	return false
}

// Clusters lists the registered clusters.
func (m *Manager) Clusters() []*Cluster {
	m.mu.Lock()
	defer m.mu.Unlock()
	out := make([]*Cluster, 0, len(m.clusters))
	for _, c := range m.clusters {
		out = append(out, c)
	}
	return out
}

// DeleteCluster stops the cluster's API server and forgets it (its servers
// are gone).
func (m *Manager) DeleteCluster(name string) {
	m.mu.Lock()
	c := m.clusters[name]
	delete(m.clusters, name)
	for n, nc := range m.nodes {
		if nc == c {
			delete(m.nodes, n)
		}
	}
	m.mu.Unlock()
	if c != nil {
		c.stop()
		_ = os.RemoveAll(filepath.Dir(m.snapshotFile(name)))
	}
}

func (m *Manager) forward(ctx context.Context, pod string, port int32, stream io.ReadWriteCloser) error {
	component, node, err := splitStaticPod(pod)
	if err != nil {
		return err
	}
	m.mu.Lock()
	c := m.nodes[node]
	m.mu.Unlock()
	if c == nil {
		return fmt.Errorf("no simulated machine is named %s", node)
	}
	return c.forward(ctx, component, node, port, stream)
}

// Stop stops every API server, the kubelet endpoint and etcd.
func (m *Manager) Stop() {
	m.mu.Lock()
	cs := make([]*Cluster, 0, len(m.clusters))
	for _, c := range m.clusters {
		cs = append(cs, c)
	}
	m.mu.Unlock()
	var wg sync.WaitGroup
	for _, c := range cs {
		wg.Add(1)
		go func() { defer wg.Done(); c.stop(); m.keep(c) }()
	}
	wg.Wait()
	if m.kubelet != nil {
		m.kubelet.stop()
	}
	if m.etcd != nil && m.etcd.Process != nil {
		_ = m.etcd.Process.Signal(os.Interrupt)
		select {
		case err := <-m.etcdErr:
			m.logStopped(err)
		case <-time.After(10 * time.Second):
			_ = m.etcd.Process.Kill()
			m.logStopped(<-m.etcdErr)
		}
	}
	m.cleanup()
}

// keep saves a light cluster's objects for the next start.
func (m *Manager) keep(c *Cluster) {
	if c.store == nil || m.temp {
		return
	}
	if err := m.saveStore(c.spec.Name, c.store); err != nil {
		m.o.Log.Error(err, "keeping a workload cluster's objects", "cluster", c.spec.Name)
	}
}

// logStopped records how etcd ended: an interrupt is the normal way.
func (m *Manager) logStopped(err error) {
	if err != nil {
		m.o.Log.V(1).Info("workload clusters' etcd stopped", "result", err.Error())
	}
}

func (m *Manager) cleanup() {
	if m.temp {
		_ = os.RemoveAll(m.dir)
	}
}

// dirName makes a cluster name (namespace/name) a folder and etcd prefix.
func dirName(name string) string { return strings.ReplaceAll(name, "/", "_") }
