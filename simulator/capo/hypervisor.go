package capo

import (
	"context"
	"errors"
	"fmt"
	"net"
	"strings"
	"sync"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/simulator/workload"
)

// NewHypervisor prepares the simulator of the real-OpenStack world, where
// the real CAPO (mgmtcluster/capo) creates the networks, load balancers and
// Nova servers and Nova's fake driver runs no VM: the simulator plays only
// what would run inside the servers. It never writes an OpenStackCluster
// or an OpenStackMachine; it reads what CAPO wrote there. A cluster whose
// OpenStackCluster is ready gets its workload API server on the
// control-plane endpoint CAPO reports (the API load balancer's floating IP,
// on the loopback in the test cloud); a server CAPO reports ACTIVE boots
// (a simulated kubelet registers its Node with the server's address and
// CAPO's providerID; the first control-plane server starts the API server).
// A server CAPO deletes stops its kubelet; a cluster whose OpenStackCluster
// goes stops its API server.
func NewHypervisor(cfg *rest.Config, o Options) (*Provider, error) {
	if o.Workloads == nil {
		return nil, errors.New("simulated hypervisor: no workload cluster manager")
	}
	if o.Namespace == "" {
		o.Namespace = kube.Namespace
	}
	if o.StepDelay <= 0 {
		o.StepDelay = 2 * time.Second // how often a join retries, the kubelets sync
	}
	mgr, err := newManager(cfg, o)
	if err != nil {
		return nil, fmt.Errorf("simulated hypervisor: %w", err)
	}
	if err := ctrl.NewControllerManagedBy(mgr).Named("hypervisor-openstackcluster").
		For(&infrav1.OpenStackCluster{}).
		Complete(&endpointServer{client: mgr.GetClient(), o: o, keys: map[string]string{}}); err != nil {
		return nil, err
	}
	ml := &machineReconciler{client: mgr.GetClient(), o: o}
	if err := ctrl.NewControllerManagedBy(mgr).Named("hypervisor-openstackmachine").
		For(&infrav1.OpenStackMachine{}).
		// A joining server waits for the first control plane's API
		// server, which a Cluster change (its endpoint, its
		// initialization) tells.
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(ml.machinesOfCluster)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(&serverBoot{machineReconciler: ml, keys: map[string]string{}}); err != nil {
		return nil, err
	}
	if err := mgr.Add(&kubelets{o: o}); err != nil {
		return nil, err
	}
	return &Provider{mgr: mgr}, nil
}

// endpointServer serves each cluster's workload API server where CAPO
// says the control plane is.
type endpointServer struct {
	client client.Client
	o      Options
	mu     sync.Mutex
	keys   map[string]string // OpenStackCluster → workload cluster, for deletes
}

func (r *endpointServer) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	osc := &infrav1.OpenStackCluster{}
	err := r.client.Get(ctx, req.NamespacedName, osc)
	if client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, err
	}
	if err != nil || !osc.DeletionTimestamp.IsZero() {
		// Cluster API deletes the OpenStackCluster once every machine is
		// gone; CAPO then deletes the load balancer the API was behind.
		r.mu.Lock()
		key := r.keys[req.String()]
		delete(r.keys, req.String())
		r.mu.Unlock()
		if key != "" {
			r.o.Workloads.DeleteCluster(key)
		}
		return reconcile.Result{}, nil
	}
	clusterName := osc.Labels[clusterv1.ClusterNameLabel]
	ep := osc.Spec.ControlPlaneEndpoint
	if clusterName == "" || !osc.Status.Ready || ep == nil || ep.Host == "" {
		return reconcile.Result{}, nil // CAPO's next status update wakes us
	}
	if ip := net.ParseIP(ep.Host); ip == nil || !ip.IsLoopback() {
		// The test cloud's floating IPs are on the loopback; listening
		// anywhere else is never allowed here.
		return reconcile.Result{}, reconcile.TerminalError(fmt.Errorf("OpenStackCluster %s: control-plane endpoint %s is not a loopback address; the simulated API server serves only on 127.0.0.0/8", osc.Name, ep.Host))
	}
	cluster := &clusterv1.Cluster{}
	if err := r.client.Get(ctx, client.ObjectKey{Namespace: osc.Namespace, Name: clusterName}, cluster); err != nil {
		return reconcile.Result{}, client.IgnoreNotFound(err)
	}
	key := osc.Namespace + "/" + clusterName
	spec := workload.ClusterSpec{Name: key, Host: ep.Host, Port: int(ep.Port)}
	if n := cluster.Spec.ClusterNetwork.Services.CIDRBlocks; len(n) > 0 {
		spec.ServiceCIDR = n[0]
	}
	r.mu.Lock()
	r.keys[req.String()] = key
	r.mu.Unlock()
	_, err = r.o.Workloads.EnsureCluster(spec)
	return reconcile.Result{}, err
}

// serverBoot boots the servers CAPO reports ACTIVE and stops those it
// deletes.
type serverBoot struct {
	*machineReconciler
	mu   sync.Mutex
	keys map[string]string // OpenStackMachine → workload cluster, for deletes
}

func (r *serverBoot) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	osm := &infrav1.OpenStackMachine{}
	err := r.client.Get(ctx, req.NamespacedName, osm)
	if client.IgnoreNotFound(err) != nil {
		return reconcile.Result{}, err
	}
	if err != nil || !osm.DeletionTimestamp.IsZero() {
		r.shutdown(ctx, req)
		return reconcile.Result{}, nil
	}
	ip := internalIP(osm.Status.Addresses)
	providerID := ptr.Deref(osm.Spec.ProviderID, "")
	// CAPO v0.14 keeps the instance state on the OpenStackServer; on the
	// OpenStackMachine, Ready with a providerID is "Nova says ACTIVE".
	if !osm.Status.Ready || providerID == "" || ip == "" {
		return reconcile.Result{}, nil // not ACTIVE yet: CAPO's updates wake us
	}
	machine, cluster, err := r.owners(ctx, osm)
	if err != nil || machine == nil || cluster == nil || machine.Spec.Bootstrap.DataSecretName == nil {
		return reconcile.Result{RequeueAfter: r.o.StepDelay}, err
	}
	key := osm.Namespace + "/" + osm.Labels[clusterv1.ClusterNameLabel]
	r.mu.Lock()
	r.keys[req.String()] = key
	r.mu.Unlock()
	return r.boot(ctx, osm, machine, cluster, key, providerID, ip)
}

// shutdown stops the kubelet (and etcd member) of a deleted server: Nova
// deleted it.
func (r *serverBoot) shutdown(ctx context.Context, req reconcile.Request) {
	r.mu.Lock()
	key := r.keys[req.String()]
	delete(r.keys, req.String())
	r.mu.Unlock()
	if wc := r.o.Workloads.Cluster(key); wc != nil {
		if err := wc.Shutdown(ctx, req.Name); err != nil {
			r.o.Logger.V(1).Info("server shutdown", "machine", req.Name, "error", err.Error())
		}
	}
}

// internalIP is the server's first fixed address (CAPO copies Nova's
// addresses: InternalIP for the cluster network's, ExternalIP for a
// floating IP).
func internalIP(addrs []corev1.NodeAddress) string {
	for _, a := range addrs {
		if a.Type == corev1.NodeInternalIP && !strings.Contains(a.Address, ":") {
			return a.Address
		}
	}
	return ""
}
