package clusterapi

import (
	"context"
	"fmt"
	"time"

	"go.uber.org/zap"
	"sigs.k8s.io/controller-runtime/pkg/controller"
	"sigs.k8s.io/controller-runtime/pkg/manager"

	"sigs.k8s.io/cluster-api/bootstrap/kubeadm/reconcilers/kubeadmconfig"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/etcd"
	"sigs.k8s.io/cluster-api/controlplane/kubeadm/reconcilers/kubeadmcontrolplane"
	controlplanesetup "sigs.k8s.io/cluster-api/controlplane/kubeadm/setup"
)

// controlPlaneName is the user agent of KubeadmControlPlane's requests to
// workload clusters, as upstream's.
const controlPlaneName = "cluster-api-kubeadm-control-plane-manager"

// setupControlPlane sets up the kubeadm control plane provider as
// controlplane/kubeadm/main.go does (without in-place updates, an alpha
// feature that needs the RuntimeSDK, and without the CRD migrator). It keeps
// a ClusterCache of its own: it caches the workload clusters' control plane
// static Pods, which the core's must not (its drain lists every Pod of a
// Node, so it reads Pods live).
func setupControlPlane(ctx context.Context, mgr manager.Manager, o Options, p shared, etcdLogger *zap.Logger) error {
	clusterCache, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient: p.secretCachingClient,
		Cache:        controlplanesetup.ClusterCacheCacheOptions(),
		Client:       controlplanesetup.ClusterCacheClientOptions(controlPlaneName, 20, 30),
	}, concurrency(o))
	if err != nil {
		return err
	}
	if err := (&kubeadmcontrolplane.Reconciler{
		Client:                      mgr.GetClient(),
		APIReader:                   mgr.GetAPIReader(),
		SecretCachingClient:         p.secretCachingClient,
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
		return fmt.Errorf("controller KubeadmControlPlane: %w", err)
	}
	return nil
}

// setupBootstrap sets up the kubeadm bootstrap provider as
// bootstrap/kubeadm/main.go does (without the CRD migrator).
func setupBootstrap(ctx context.Context, mgr manager.Manager, o Options, p shared) error {
	if err := (&kubeadmconfig.Reconciler{
		Client:              mgr.GetClient(),
		SecretCachingClient: p.secretCachingClient,
		APIReader:           mgr.GetAPIReader(),
		ClusterCache:        p.clusterCache,
		TokenTTL:            kubeadmconfig.DefaultTokenTTL,
	}).SetupWithManager(ctx, mgr, concurrency(o)); err != nil {
		return fmt.Errorf("controller KubeadmConfig: %w", err)
	}
	return nil
}
