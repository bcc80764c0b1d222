package clusterapi

import (
	"context"
	"fmt"
	"time"

	corev1 "k8s.io/api/core/v1"
	storagev1 "k8s.io/api/storage/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/schema"
	utilruntime "k8s.io/apimachinery/pkg/util/runtime"
	"k8s.io/apimachinery/pkg/util/sets"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	ctrl "sigs.k8s.io/controller-runtime"
	ctrlcache "sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/manager"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	addonsv1beta1 "sigs.k8s.io/cluster-api/api/addons/v1beta1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	bootstrapv1beta1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta1"
	bootstrapv1 "sigs.k8s.io/cluster-api/api/bootstrap/kubeadm/v1beta2"
	controlplanev1beta1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	ipamv1alpha1 "sigs.k8s.io/cluster-api/api/ipam/v1alpha1"
	ipamv1beta1 "sigs.k8s.io/cluster-api/api/ipam/v1beta1"
	ipamv1 "sigs.k8s.io/cluster-api/api/ipam/v1beta2"
	runtimev1alpha1 "sigs.k8s.io/cluster-api/api/runtime/v1alpha1"
	runtimev1 "sigs.k8s.io/cluster-api/api/runtime/v1beta2"
	bootstrapadmission "sigs.k8s.io/cluster-api/bootstrap/kubeadm/webhooks/admission"
	"sigs.k8s.io/cluster-api/controllers/clustercache"
	"sigs.k8s.io/cluster-api/controllers/remote"
	controlplaneadmission "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/admission"
	controlplaneconversion "sigs.k8s.io/cluster-api/controlplane/kubeadm/webhooks/conversion"
	"sigs.k8s.io/cluster-api/core/reconcilers/cluster"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterclass"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterresourceset"
	"sigs.k8s.io/cluster-api/core/reconcilers/clusterresourcesetbinding"
	"sigs.k8s.io/cluster-api/core/reconcilers/machine"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinedeployment"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinehealthcheck"
	"sigs.k8s.io/cluster-api/core/reconcilers/machinepool"
	"sigs.k8s.io/cluster-api/core/reconcilers/machineset"
	topologycluster "sigs.k8s.io/cluster-api/core/reconcilers/topology/cluster"
	topologymachinedeployment "sigs.k8s.io/cluster-api/core/reconcilers/topology/machinedeployment"
	topologymachineset "sigs.k8s.io/cluster-api/core/reconcilers/topology/machineset"
	"sigs.k8s.io/cluster-api/core/setup"
	coreadmission "sigs.k8s.io/cluster-api/core/webhooks/admission"
	coreconversion "sigs.k8s.io/cluster-api/core/webhooks/conversion"
	"sigs.k8s.io/cluster-api/feature"
	capicontrollerutil "sigs.k8s.io/cluster-api/util/controller"
	"sigs.k8s.io/cluster-api/util/index"
	"sigs.k8s.io/cluster-api/util/secret"
)

const coreName = "cluster-api-controller-manager"

// Cluster API's defaults for its remote health checks (core/main.go flags).
const (
	remoteConnectionGracePeriod = 50 * time.Second
	remoteConditionsGracePeriod = 5 * time.Minute
)

// coreScheme is the core provider's scheme plus the kubeadm providers'
// types, every version: the manager runs their controllers and serves their
// webhooks, whose decoders and converters need every version.
func coreScheme() *runtime.Scheme {
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{
		clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, storagev1.AddToScheme,
		clusterv1beta1.AddToScheme, clusterv1.AddToScheme,
		addonsv1beta1.AddToScheme, addonsv1.AddToScheme,
		runtimev1alpha1.AddToScheme, runtimev1.AddToScheme,
		ipamv1alpha1.AddToScheme, ipamv1beta1.AddToScheme, ipamv1.AddToScheme,
		controlplanev1beta1.AddToScheme, controlplanev1.AddToScheme,
		bootstrapv1beta1.AddToScheme, bootstrapv1.AddToScheme,
	} {
		utilruntime.Must(add(s))
	}
	return s
}

// newManager makes the manager all three providers share. Its cache is the
// core provider's (core/main.go) with the kubeadm providers' Secret entry,
// which keeps the data of every cluster certificate Secret rather than only
// the kubeconfig's. Each of the other differences between the providers'
// caches only drops data another provider reads (KubeadmControlPlane's
// worker Machines' specs and worker KubeadmConfigs, the bootstrap
// provider's MachineSet specs and managed fields), so the union serves all
// three from one informer per kind. Upstream's three Deployments hold
// Clusters and Machines three times.
func newManager(cfg *rest.Config, o Options) (manager.Manager, error) {
	scheme := coreScheme()
	opts := managerOptions(o)
	opts.Scheme = scheme
	opts.Cache = setup.ManagerCacheOptions(scheme, informerName(coreName), o.Namespace, o.SyncPeriod)
	certificateSecrets(opts.Cache.ByObject)
	opts.Cache.NewInformer = unstructuredApart(opts.Cache.NewInformer,
		capicontrollerutil.NewInformerFunc(scheme, informerName(coreName+"-unstructured")))
	opts.Client = setup.ManagerClientOptions()
	if o.MetricsAddr != "" {
		opts.Metrics = metricsserver.Options{BindAddress: o.MetricsAddr}
	}
	if o.WebhookPort != 0 {
		opts.WebhookServer = webhookServer(o)
	}
	mgr, err := ctrl.NewManager(userAgent(cfg, coreName), opts)
	if err != nil {
		return nil, err
	}
	if o.WebhookPort != 0 && o.HealthAddr != "" {
		if err := mgr.AddReadyzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return nil, err
		}
		if err := mgr.AddHealthzCheck("webhook", mgr.GetWebhookServer().StartedChecker()); err != nil {
			return nil, err
		}
	}
	return mgr, nil
}

// certificateSecrets makes the cache keep the data of every cluster
// certificate Secret, as the kubeadm providers' caches do
// (controlplane/kubeadm/setup): the core's keeps only the kubeconfig's. The
// entry keeps the core's selector (the cluster name label).
func certificateSecrets(byObject map[client.Object]ctrlcache.ByObject) {
	for obj, entry := range byObject {
		if _, ok := obj.(*corev1.Secret); !ok {
			continue
		}
		entry.Transform = func(in any) (any, error) {
			if s, ok := in.(*corev1.Secret); ok {
				s.SetManagedFields(nil)
				if !secret.HasPurposeSuffix(s.Name) {
					s.Data = nil
				}
			}
			return in, nil
		}
		byObject[obj] = entry
		return
	}
	panic("cluster api: the core provider's cache has no Secret entry")
}

// newInformerFunc is the cache's informer constructor.
type newInformerFunc = func(toolscache.ListerWatcher, runtime.Object, time.Duration, toolscache.Indexers) toolscache.SharedIndexInformer

// unstructuredApart gives unstructured informers a name of their own:
// client-go names an informer by its manager and resource, and in one
// manager KubeadmControlPlane's typed informer and the topology
// controller's unstructured one of the same resource would share a name,
// and one of them lose its metrics (with an error in the log).
func unstructuredApart(typed, unstructuredInformer newInformerFunc) newInformerFunc {
	return func(lw toolscache.ListerWatcher, obj runtime.Object, resync time.Duration, idx toolscache.Indexers) toolscache.SharedIndexInformer {
		if _, ok := obj.(*unstructured.Unstructured); ok {
			return unstructuredInformer(lw, obj, resync, idx)
		}
		return typed(lw, obj, resync, idx)
	}
}

// shared is what more than one provider's controllers use.
type shared struct {
	// secretCachingClient reads the cluster certificate Secrets from the
	// manager's cache (the manager's client reads Secrets live).
	secretCachingClient client.Client
	// clusterCache holds a client and a cache per workload cluster, with the
	// core provider's options. The bootstrap provider only gets clients
	// from it and reads Secrets (uncached in both) through them, so it
	// shares the core's; KubeadmControlPlane keeps its own (kubeadm.go).
	clusterCache clustercache.ClusterCache
}

func newShared(ctx context.Context, mgr manager.Manager, o Options) (shared, error) {
	if err := index.AddDefaultIndexes(ctx, mgr); err != nil {
		return shared{}, err
	}
	secretCachingClient, err := setup.CreateSecretCachingClient(mgr)
	if err != nil {
		return shared{}, err
	}
	clusterCache, err := clustercache.SetupWithManager(ctx, mgr, clustercache.Options{
		SecretClient: secretCachingClient,
		Cache:        setup.ClusterCacheCacheOptions(),
		Client:       setup.ClusterCacheClientOptions(coreName, 20, 30),
	}, concurrency(o))
	if err != nil {
		return shared{}, err
	}
	return shared{secretCachingClient: secretCachingClient, clusterCache: clusterCache}, nil
}

// setupCore sets up the core provider's controllers as core/main.go does,
// without what keel does not use: no RuntimeSDK (no extensions), no CRD
// migrator (the embedded cluster stores every object at the storage
// version from the start), no version check of the apiserver (keel pins
// it).
func setupCore(ctx context.Context, mgr manager.Manager, o Options, p shared) error {
	// The ClusterResourceSet controller watches every Secret's metadata
	// (the resources it applies need not carry a cluster label), in a cache
	// of its own as in core/main.go.
	partialSecretCache, err := newPartialSecretCache(mgr, o)
	if err != nil {
		return err
	}
	if err := mgr.Add(partialSecretCache); err != nil {
		return err
	}
	clusterCache := p.clusterCache
	c := mgr.GetClient()
	api := mgr.GetAPIReader()
	setups := []struct {
		name  string
		setup func() error
	}{
		{"ClusterClass", func() error {
			return (&clusterclass.Reconciler{Client: c}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"ClusterTopology", func() error {
			return (&topologycluster.Reconciler{Client: c, APIReader: api, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"MachineDeploymentTopology", func() error {
			return (&topologymachinedeployment.Reconciler{Client: c, APIReader: api}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"MachineSetTopology", func() error {
			return (&topologymachineset.Reconciler{Client: c, APIReader: api}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"Cluster", func() error {
			return (&cluster.Reconciler{Client: c, APIReader: api, ClusterCache: clusterCache, RemoteConnectionGracePeriod: remoteConnectionGracePeriod}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"Machine", func() error {
			return (&machine.Reconciler{Client: c, APIReader: api, ClusterCache: clusterCache, RemoteConditionsGracePeriod: remoteConditionsGracePeriod}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"MachineSet", func() error {
			return (&machineset.Reconciler{
				Client: c, APIReader: api, ClusterCache: clusterCache,
				PreflightChecks: sets.New(clusterv1.MachineSetPreflightCheckAll),
			}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"MachineDeployment", func() error {
			return (&machinedeployment.Reconciler{Client: c, APIReader: api}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"MachinePool", func() error {
			if !feature.Gates.Enabled(feature.MachinePool) {
				return nil
			}
			return (&machinepool.Reconciler{Client: c, APIReader: api, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"ClusterResourceSet", func() error {
			return (&clusterresourceset.Reconciler{Client: c, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, concurrency(o), partialSecretCache)
		}},
		{"ClusterResourceSetBinding", func() error {
			return (&clusterresourcesetbinding.Reconciler{Client: c}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
		{"MachineHealthCheck", func() error {
			return (&machinehealthcheck.Reconciler{Client: c, ClusterCache: clusterCache}).SetupWithManager(ctx, mgr, concurrency(o))
		}},
	}
	for _, s := range setups {
		if err := s.setup(); err != nil {
			return fmt.Errorf("controller %s: %w", s.name, err)
		}
	}
	return nil
}

func newPartialSecretCache(mgr manager.Manager, o Options) (ctrlcache.Cache, error) {
	var namespaces map[string]ctrlcache.Config
	if o.Namespace != "" {
		namespaces = map[string]ctrlcache.Config{o.Namespace: {}}
	}
	return ctrlcache.New(mgr.GetConfig(), ctrlcache.Options{
		Scheme:            mgr.GetScheme(),
		Mapper:            mgr.GetRESTMapper(),
		HTTPClient:        mgr.GetHTTPClient(),
		SyncPeriod:        &o.SyncPeriod,
		DefaultNamespaces: namespaces,
		DefaultTransform: func(in any) (any, error) {
			if _, ok := in.(*metav1.PartialObjectMetadata); !ok {
				return nil, fmt.Errorf("the Secret metadata cache got a %T", in)
			}
			return ctrlcache.TransformStripManagedFields()(in)
		},
	})
}

// setupWebhooks registers every provider's webhooks on the manager, as
// core/main.go, controlplane/kubeadm/main.go and bootstrap/kubeadm/main.go
// register them on theirs.
func setupWebhooks(mgr manager.Manager, clusterCache clustercache.ClusterCache) error {
	// Converting a v1beta2 reference to v1beta1 needs the apiVersion of the
	// referenced kind, from its CRD's contract label.
	getter := newContractCache(func(ctx context.Context, gk schema.GroupKind) (string, error) {
		return apiVersionFromContract(ctx, mgr.GetAPIReader(), gk)
	}).APIVersion
	coreconversion.SetAPIVersionGetter(getter)
	controlplaneconversion.SetAPIVersionGetter(getter)

	c := mgr.GetClient()
	webhooks := []struct {
		name  string
		setup func(ctrl.Manager) error
	}{
		{"ClusterClass", (&coreadmission.ClusterClass{Client: c}).SetupWebhookWithManager},
		{"Cluster", (&coreadmission.Cluster{Client: c, ClusterCacheReader: clusterCache}).SetupWebhookWithManager},
		{"Machine", (&coreadmission.Machine{}).SetupWebhookWithManager},
		{"MachineSet", (&coreadmission.MachineSet{}).SetupWebhookWithManager},
		{"MachineDeployment", (&coreadmission.MachineDeployment{}).SetupWebhookWithManager},
		{"MachineDrainRule", (&coreadmission.MachineDrainRule{}).SetupWebhookWithManager},
		{"MachinePool", (&coreadmission.MachinePool{}).SetupWebhookWithManager},
		{"ClusterResourceSet", (&coreadmission.ClusterResourceSet{}).SetupWebhookWithManager},
		{"ClusterResourceSetBinding", (&coreadmission.ClusterResourceSetBinding{}).SetupWebhookWithManager},
		{"MachineHealthCheck", (&coreadmission.MachineHealthCheck{}).SetupWebhookWithManager},
		{"ExtensionConfig", (&coreadmission.ExtensionConfig{}).SetupWebhookWithManager},
		{"IPAddress", (&coreadmission.IPAddress{Client: mgr.GetAPIReader()}).SetupWebhookWithManager},
		{"IPAddressClaim", (&coreadmission.IPAddressClaim{}).SetupWebhookWithManager},
		{"KubeadmControlPlane", (&controlplaneadmission.KubeadmControlPlane{}).SetupWebhookWithManager},
		{"KubeadmControlPlane scale", (&controlplaneadmission.ScaleValidator{Client: c}).SetupWebhookWithManager},
		{"KubeadmControlPlaneTemplate", (&controlplaneadmission.KubeadmControlPlaneTemplate{}).SetupWebhookWithManager},
		{"KubeadmConfig", (&bootstrapadmission.KubeadmConfig{}).SetupWebhookWithManager},
		{"KubeadmConfigTemplate", (&bootstrapadmission.KubeadmConfigTemplate{}).SetupWebhookWithManager},
	}
	for _, w := range webhooks {
		if err := w.setup(mgr); err != nil {
			return fmt.Errorf("webhook %s: %w", w.name, err)
		}
	}
	return nil
}

// userAgent copies cfg with Cluster API's user agent for a provider, so the
// apiserver's audit log and managed fields tell its writes from keel's.
func userAgent(cfg *rest.Config, controllerName string) *rest.Config {
	c := rest.CopyConfig(cfg)
	c.UserAgent = remote.DefaultClusterAPIUserAgent(controllerName)
	return c
}
