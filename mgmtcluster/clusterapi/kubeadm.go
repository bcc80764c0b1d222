package clusterapi

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/runtime"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/reconcilers/kubeadmconfig"
	bootstrapsetup "sigs.k8s.io/cluster-api/bootstrap/kubeadm/setup"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/etcd"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/reconcilers/kubeadmcontrolplane"
	controlplanesetup "sigs.k8s.io/cluster-api/controlplane/kubeadm/setup"
)

const (
	controlPlaneName = "cluster-api-kubeadm-control-plane-manager"
	bootstrapName    = "cluster-api-kubeadm-bootstrap-manager"
)

// newControlPlane sets up the kubeadm control plane provider as
// controlplane/kubeadm/main.go does (without in-place updates, an alpha
// feature that needs the RuntimeSDK, and without the CRD migrator). It has
// its own manager because its caches differ from the core's: it keeps only
// control plane KubeadmConfigs, drops worker Machines' specs and keeps the
// data of the cluster certificate Secrets, which the core's cache drops.
func newControlPlane(ctx context.Context, cfg *rest.Config, o Options, etcdLogger *zap.Logger) (manager.Manager, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, clusterv1.AddToScheme,
		controlplanev1beta1.AddToScheme, controlplanev1.AddToScheme,
		bootstrapv1.AddToScheme, apiextensionsv1.AddToScheme, runtimev1.AddToScheme,
	} {
		utilruntime.Must(add(scheme))
	}
	opts := managerOptions(o, "kubeadm-control-plane-manager-leader-election-capi")
	opts.Scheme = scheme
	opts.Cache = controlplanesetup.ManagerCacheOptions(scheme, informerName(controlPlaneName), o.Namespace, o.SyncPeriod)
	opts.Client = controlplanesetup.ManagerClientOptions()
	mgr, err := ctrl.NewManager(userAgent(cfg, controlPlaneName), opts)
	if err != nil {
		return nil, err
	}
	secretCachingClient, err := controlplanesetup.CreateSecretCachingClient(mgr)
	if err != nil {
		return nil, err
	}
	clusterCache, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient: secretCachingClient,
		Cache:        controlplanesetup.ClusterCacheCacheOptions(),
		Client:       controlplanesetup.ClusterCacheClientOptions(controlPlaneName, 20, 30),
	}, concurrency(o))
	if err != nil {
		return nil, err
	}
	if err := (&kubeadmcontrolplane.Reconciler{
		Client:                      mgr.GetClient(),
		APIReader:                   mgr.GetAPIReader(),
		SecretCachingClient:         secretCachingClient,
		ClusterCache:                clusterCache,
		EtcdDialTimeout:             10 * time.Second,
		EtcdCallTimeout:             etcd.DefaultCallTimeout,
		EtcdLogger:                  etcdLogger,
		RemoteConditionsGracePeriod: remoteConditionsGracePeriod,
	}).SetupWithManager(ctx, mgr, controller.Options{
		MaxConcurrentReconciles: o.Concurrency,
		// As Cluster API: a reconcile may talk to every etcd member.
		ReconciliationTimeout: 3 * time.Minute,
	}); err != nil {
		return nil, fmt.Errorf("controller KubeadmControlPlane: %w", err)
	}
	return mgr, nil
}

// newBootstrap sets up the kubeadm bootstrap provider as
// bootstrap/kubeadm/main.go does (without the CRD migrator).
func newBootstrap(ctx context.Context, cfg *rest.Config, o Options) (manager.Manager, error) {
	scheme := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, clusterv1.AddToScheme,
		bootstrapv1beta1.AddToScheme, bootstrapv1.AddToScheme,
	} {
		utilruntime.Must(add(scheme))
	}
	opts := managerOptions(o, "kubeadm-bootstrap-manager-leader-election-capi")
	opts.Scheme = scheme
	opts.Cache = bootstrapsetup.ManagerCacheOptions(scheme, informerName(bootstrapName), o.Namespace, o.SyncPeriod)
	opts.Client = bootstrapsetup.ManagerClientOptions()
	mgr, err := ctrl.NewManager(userAgent(cfg, bootstrapName), opts)
	if err != nil {
		return nil, err
	}
	secretCachingClient, err := bootstrapsetup.CreateSecretCachingClient(mgr)
	if err != nil {
		return nil, err
	}
	clusterCache, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient: secretCachingClient,
		Cache:        bootstrapsetup.ClusterCacheCacheOptions(),
		Client:       bootstrapsetup.ClusterCacheClientOptions(bootstrapName, 20, 30),
	}, concurrency(o))
	if err != nil {
		return nil, err
	}
	if err := (&kubeadmconfig.Reconciler{
		Client:              mgr.GetClient(),
		SecretCachingClient: secretCachingClient,
		APIReader:           mgr.GetAPIReader(),
		ClusterCache:        clusterCache,
		TokenTTL:            kubeadmconfig.DefaultTokenTTL,
	}).SetupWithManager(ctx, mgr, concurrency(o)); err != nil {
		return nil, fmt.Errorf("controller KubeadmConfig: %w", err)
	}
	return mgr, nil
}
