// Package simulator is keel's infrastructure simulator: a small controller
// that plays the part of the Cluster API core and topology controllers, the
// KubeadmControlPlane and MachineDeployment controllers and the OpenStack
// provider (CAPO) for the topology-managed Clusters keel applies, so that a
// management cluster without any real provider (keel serve's embedded
// kube-apiserver, the integration tests) still sees clusters that provision,
// scale, roll out and delete.
//
// Nothing is ever booted: Machines get documentation and private addresses,
// made-up OpenStack instance IDs and a Node name, and every status is written
// by the simulator itself. It must only run against a management cluster that
// has no real Cluster API controllers (see docs/simulator.md).
//
// The simulator only writes objects it creates itself and the status of the
// Clusters; the one Cluster spec field it sets is spec.controlPlaneEndpoint,
// server-side applied under its own field manager so that it never conflicts
// with keel's.
package simulator

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/go-logr/logr"
	"k8s.io/client-go/rest"
	"k8s.io/utils/ptr"
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

	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"

	"github.com/openkeel/keel/internal/kube"
)

// FieldManager is the server-side apply field manager of the only Cluster
// spec field the simulator writes (spec.controlPlaneEndpoint). It differs
// from keel's manager so that neither ever takes a field from the other.
const FieldManager = "keel-simulator"

// Fault-injection annotations, set on a Cluster by tests (see docs/simulator.md).
const (
	// AnnotationFailMachines makes every Machine of the Cluster that has not
	// finished provisioning fail. Its value is "<Reason>" or
	// "<Reason>: <message>"; the reason must be a CamelCase condition reason,
	// otherwise the whole value is used as the message and the reason is
	// ReasonInstanceCreateFailed.
	AnnotationFailMachines = "simulator.keel.openkeel.io/fail-machines"
	// AnnotationPause set to "true" freezes provisioning, scaling and rollouts
	// of the Cluster (deletion still proceeds, so that a timed-out cluster can
	// be deleted).
	AnnotationPause = "simulator.keel.openkeel.io/pause"
)

// Options configure the simulator.
type Options struct {
	// Namespace holds the Clusters to simulate; default kube.Namespace.
	Namespace string
	// StepDelay is the time between two provisioning steps of a cluster
	// (infrastructure, then each Machine); default 2s. Tests use ~50ms.
	StepDelay time.Duration
	// Logger receives the controller's logs; the zero value discards them.
	Logger logr.Logger
}

func (o Options) withDefaults() Options {
	if o.Namespace == "" {
		o.Namespace = kube.Namespace
	}
	if o.StepDelay <= 0 {
		o.StepDelay = 2 * time.Second
	}
	return o
}

// Simulator is a ready-to-start simulator (see New).
type Simulator struct {
	mgr manager.Manager
}

// Run starts the simulator on the cluster behind cfg and blocks until ctx is
// done.
func Run(ctx context.Context, cfg *rest.Config, o Options) error {
	s, err := New(cfg, o)
	if err != nil {
		return err
	}
	return s.Start(ctx)
}

// New prepares a simulator for the cluster behind cfg. It needs no leader
// election and serves neither metrics nor health probes.
func New(cfg *rest.Config, o Options) (*Simulator, error) {
	if cfg == nil {
		return nil, errors.New("simulator: no rest config")
	}
	o = o.withDefaults()
	cfg = rest.CopyConfig(cfg)
	if cfg.QPS == 0 {
		// client-go's default (5/s) is far too slow for 50ms steps.
		cfg.QPS, cfg.Burst = 100, 200
	}
	mgr, err := ctrl.NewManager(cfg, manager.Options{
		Scheme:                 kube.NewScheme(),
		Logger:                 o.Logger,
		Metrics:                metricsserver.Options{BindAddress: "0"},
		HealthProbeBindAddress: "0",
		LeaderElection:         false,
		Cache: cache.Options{
			DefaultNamespaces: map[string]cache.Config{o.Namespace: {}},
		},
		// Several simulators may run in one process (tests).
		Controller: config.Controller{SkipNameValidation: ptr.To(true)},
	})
	if err != nil {
		return nil, fmt.Errorf("simulator: creating the controller manager: %w", err)
	}
	r := newReconciler(mgr.GetClient(), o)
	toCluster := handler.EnqueueRequestsFromMapFunc(clusterOfChild)
	err = ctrl.NewControllerManagedBy(mgr).
		Named("keel-infrastructure-simulator").
		For(&clusterv1.Cluster{}).
		Watches(&controlplanev1.KubeadmControlPlane{}, toCluster).
		Watches(&clusterv1.MachineDeployment{}, toCluster).
		Watches(&clusterv1.Machine{}, toCluster).
		WithOptions(controller.Options{MaxConcurrentReconciles: 4}).
		Complete(r)
	if err != nil {
		return nil, fmt.Errorf("simulator: creating the controller: %w", err)
	}
	return &Simulator{mgr: mgr}, nil
}

// Start runs the simulator until ctx is done.
func (s *Simulator) Start(ctx context.Context) error {
	if err := s.mgr.Start(ctx); err != nil {
		return fmt.Errorf("simulator: %w", err)
	}
	return nil
}

// clusterOfChild maps a KubeadmControlPlane, MachineDeployment or Machine to
// its Cluster through the cluster-name label, so that changes made by others
// (the autoscaler's replicas, a delete-machine annotation, a deleted Machine)
// are acted upon at once.
func clusterOfChild(_ context.Context, o client.Object) []reconcile.Request {
	name := o.GetLabels()[clusterv1.ClusterNameLabel]
	if name == "" {
		return nil
	}
	return []reconcile.Request{{NamespacedName: client.ObjectKey{Namespace: o.GetNamespace(), Name: name}}}
}
