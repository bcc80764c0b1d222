// Package capo is keel's simulated OpenStack provider: it plays CAPO
// (cluster-api-provider-openstack v0.14) for the OpenStackClusters and
// OpenStackMachines that Cluster API's real controllers create, and boots
// each "server" into a simulated workload cluster (simulator/workload), so
// that the real Machine, KubeadmControlPlane and kubeadm bootstrap
// controllers find Nodes, static pods and etcd members exactly where they
// look for them on a real cloud.
//
// It stands in for OpenStack only: it never touches a Cluster, a
// KubeadmControlPlane, a MachineDeployment or a Machine. Whether a cluster
// completes is decided by Cluster API, from what the simulated machines
// report, and the simulated machines report what real ones would: a Node
// gets its providerID only once the cluster's OpenStack cloud controller
// manager is installed and becomes Ready only once a CNI is.
package capo

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/handler"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/simulator/workload"
)

// Finalizers CAPO v0.14 puts on its objects.
const (
	finalizerCluster = "openstackcluster.infrastructure.cluster.x-k8s.io"
	finalizerMachine = "openstackmachine.infrastructure.cluster.x-k8s.io"
)

// AnnotationFailMachines on a Cluster makes the creation of every server of
// the cluster that does not exist yet fail, as CAPO reports a Nova error:
// its value is the fault message (e.g. "No valid host was found").
const AnnotationFailMachines = "simulator.keel.openkeel.io/fail-machines"

// Options configure the simulated provider.
type Options struct {
	// Namespace holds the clusters; default kube.Namespace.
	Namespace string
	// StepDelay is how long each simulated OpenStack operation takes
	// (network, server create, server boot, delete); default 2s.
	StepDelay time.Duration
	// Workloads runs the workload clusters (required).
	Workloads *workload.Manager
	Logger    logr.Logger
}

// Provider is a ready-to-start simulated CAPO.
type Provider struct {
	mgr manager.Manager
}

// New prepares the provider for the management cluster behind cfg.
func New(cfg *rest.Config, o Options) (*Provider, error) {
	if o.Workloads == nil {
		return nil, errors.New("simulated CAPO: no workload cluster manager")
	}
	if o.Namespace == "" {
		o.Namespace = kube.Namespace
	}
	if o.StepDelay <= 0 {
		o.StepDelay = 2 * time.Second
	}
	mgr, err := newManager(cfg, o)
	if err != nil {
		return nil, fmt.Errorf("simulated CAPO: %w", err)
	}
	cl := &clusterReconciler{client: mgr.GetClient(), o: o}
	if err := ctrl.NewControllerManagedBy(mgr).Named("simulated-capo-openstackcluster").
		For(&infrav1.OpenStackCluster{}).
		WithOptions(controller.Options{MaxConcurrentReconciles: 2}).
		Complete(cl); err != nil {
		return nil, err
	}
	ml := &machineReconciler{client: mgr.GetClient(), o: o}
	if err := ctrl.NewControllerManagedBy(mgr).Named("simulated-capo-openstackmachine").
		For(&infrav1.OpenStackMachine{}).
		// CAPO waits on the Machine's bootstrap data and the Cluster's
		// infrastructure: both changes wake the OpenStackMachine.
		Watches(&clusterv1.Machine{}, handler.EnqueueRequestsFromMapFunc(infraMachineOf)).
		Watches(&clusterv1.Cluster{}, handler.EnqueueRequestsFromMapFunc(ml.machinesOfCluster)).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(ml); err != nil {
		return nil, err
	}
	if err := mgr.Add(&kubelets{o: o}); err != nil {
		return nil, err
	}
	return &Provider{mgr: mgr}, nil
}

// newManager is the controller manager of the simulated provider (or
// hypervisor): keel's scheme, the clusters' namespace, no metrics or
// probes (keel serves its own).
func newManager(cfg *rest.Config, o Options) (manager.Manager, error) {
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		cfg.QPS, cfg.Burst = 100, 200
	}
	return ctrl.NewManager(cfg, manager.Options{
		Scheme:                 kube.NewScheme(),
		Logger:                 o.Logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		Cache:                  cache.Options{DefaultNamespaces: map[string]cache.Config{o.Namespace: {}}},
		Controller:             config.Controller{SkipNameValidation: ptr.To(true)},
	})
}

// Start runs the provider until ctx is done.
func (p *Provider) Start(ctx context.Context) error { return p.mgr.Start(ctx) }

// kubelets plays every simulated kubelet (and cloud controller manager)
// periodically: heartbeats, readiness, providerIDs.
type kubelets struct{ o Options }

func (k *kubelets) Start(ctx context.Context) error {
	// A kubelet notices a CNI or a stopped runtime within seconds, not at
	// every simulated OpenStack step: a second is quick enough for the
	// tests and a tenth of the requests at their 200 ms step.
	t := time.NewTicker(max(k.o.StepDelay, time.Second))
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
		}
		for _, c := range k.o.Workloads.Clusters() {
			if err := c.Sync(ctx); err != nil && ctx.Err() == nil {
				k.o.Logger.V(1).Info("kubelet sync", "cluster", c.Name(), "error", err.Error())
			}
		}
	}
}

// infraMachineOf maps a Machine to its OpenStackMachine.
func infraMachineOf(_ context.Context, o client.Object) []reconcile.Request {
	m, ok := o.(*clusterv1.Machine)
	if !ok || m.Spec.InfrastructureRef.Kind != "OpenStackMachine" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: m.Namespace, Name: m.Spec.InfrastructureRef.Name}}}
}

// machinesOfCluster maps a Cluster to its OpenStackMachines.
func (r *machineReconciler) machinesOfCluster(ctx context.Context, o client.Object) []reconcile.Request {
	var list infrav1.OpenStackMachineList
	if err := r.client.List(ctx, &list, client.InNamespace(o.GetNamespace()), client.MatchingLabels{clusterv1.ClusterNameLabel: o.GetName()}); err != nil {
		return nil
	}
	out := make([]reconcile.Request, 0, len(list.Items))
	for i := range list.Items {
		out = append(out, reconcile.Request{NamespacedName: client.ObjectKeyFromObject(&list.Items[i])})
	}
	return out
}

// due reports how long to wait until a simulated operation that started at
// since has taken StepDelay.
func due(since time.Time, step time.Duration) time.Duration {
	if d := time.Until(since.Add(step)); d > 0 {
		return d
	}
	return 0
}
