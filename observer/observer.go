// Package observer watches the Cluster API objects of every cluster
// (informers on Cluster, KubeadmControlPlane, MachineDeployment, Machine,
// CAPO's OpenStackCluster and OpenStackMachine, and Warning Events) and
// writes what they show into the read model as soon as they change: the
// status flows back without polling.
package observer

import (
	"cmp"
	"context"
	"fmt"
	"log/slog"
	"slices"
	"sort"
	"strings"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/fields"
	"k8s.io/client-go/rest"
	toolscache "k8s.io/client-go/tools/cache"
	"k8s.io/client-go/util/workqueue"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/cache"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// Labels Cluster API puts on the objects of a cluster.
const (
	labelClusterName    = "cluster.x-k8s.io/cluster-name"
	labelDeploymentName = "topology.cluster.x-k8s.io/deployment-name"
	labelControlPlane   = "cluster.x-k8s.io/control-plane"
	labelClusterUUID    = intent.LabelClusterUUID
)

// Sink receives observations.
type Sink interface {
	SetObservation(ctx context.Context, clusterUUID string, o *status.Observation)
	ClusterUUIDByStackID(ctx context.Context, stackID string) (string, error)
}

// Observer keeps the read model in step with the management cluster.
type Observer struct {
	cache cache.Cache
	sink  Sink
	queue workqueue.TypedRateLimitingInterface[string]
	log   *slog.Logger
	// lb, when set (CheckLoadBalancers), is asked about API load balancers
	// that are not ready, every lbRecheck.
	lb        LoadBalancerFaults
	lbRecheck time.Duration
	// faults, when set (ReadServerFaults), reads Nova's fault of a server
	// in ERROR.
	faults *serverFaults
}

// New creates an observer of the magnum-system namespace behind cfg.
func New(cfg *rest.Config, sink Sink, log *slog.Logger) (*Observer, error) {
	if log == nil {
		log = slog.Default()
	}
	c, err := cache.New(cfg, cache.Options{
		Scheme:            kube.NewScheme(),
		DefaultNamespaces: map[string]cache.Config{kube.Namespace: {}},
		// Statuses never read who wrote which field, and managedFields are
		// a third of a CAPI object or more: with a thousand clusters the
		// cache would hold hundreds of megabytes of them (issue 30).
		DefaultTransform: cache.TransformStripManagedFields(),
		// Only Warnings can be a cause: Normal Events (most of them) are
		// filtered by the API server, not cached.
		ByObject: map[client.Object]cache.ByObject{
			&corev1.Event{}: {Field: fields.OneTermEqualSelector("type", corev1.EventTypeWarning)},
		},
		// A watch that fails (typically RBAC: see
		// deploy/base/rbac.yaml) holds every status
		// back until it syncs: say which and why in keel's own log.
		DefaultWatchErrorHandler: func(ctx context.Context, r *toolscache.Reflector, err error) {
			log.Error("observer: watching the management cluster failed; statuses wait until it succeeds", "watch", r.TypeDescription(), "err", err)
			toolscache.DefaultWatchErrorHandler(ctx, r, err)
		},
	})
	if err != nil {
		return nil, err
	}
	return &Observer{
		cache: c,
		sink:  sink,
		queue: workqueue.NewTypedRateLimitingQueue(workqueue.DefaultTypedControllerRateLimiter[string]()),
		log:   log,
	}, nil
}

// Run watches until ctx is done.
func (o *Observer) Run(ctx context.Context) error {
	watched := []client.Object{&clusterv1.Cluster{}, &controlplanev1.KubeadmControlPlane{}, &clusterv1.MachineDeployment{}, &clusterv1.Machine{},
		capoObject(kindOpenStackCluster), capoObject(kindOpenStackMachine), &infrav1alpha1.OpenStackServer{}}
	if err := o.cache.IndexField(ctx, &corev1.Event{}, indexInvolvedObject, indexEvent); err != nil {
		return err
	}
	if err := o.indexByCluster(ctx); err != nil {
		return err
	}
	evInf, err := o.cache.GetInformer(ctx, &corev1.Event{})
	if err != nil {
		return err
	}
	if _, err := evInf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
		AddFunc:    func(x any) { o.enqueueEvent(ctx, x) },
		UpdateFunc: func(_, x any) { o.enqueueEvent(ctx, x) },
		DeleteFunc: func(x any) { o.enqueueEvent(ctx, x) },
	}); err != nil {
		return err
	}
	for _, obj := range watched {
		inf, err := o.cache.GetInformer(ctx, obj)
		if err != nil {
			return err
		}
		isCluster := false
		if _, ok := obj.(*clusterv1.Cluster); ok {
			isCluster = true
		}
		if _, err := inf.AddEventHandler(toolscache.ResourceEventHandlerFuncs{
			AddFunc:    func(x any) { o.enqueue(x, isCluster) },
			UpdateFunc: func(_, x any) { o.enqueue(x, isCluster) },
			DeleteFunc: func(x any) { o.enqueue(x, isCluster) },
		}); err != nil {
			return err
		}
	}
	go func() {
		<-ctx.Done()
		o.queue.ShutDown()
	}()
	errc := make(chan error, 1)
	go func() { errc <- o.cache.Start(ctx) }()
	if !o.cache.WaitForCacheSync(ctx) {
		return fmt.Errorf("observer: caches did not sync")
	}
	for o.process(ctx) {
	}
	return <-errc
}

// indexClusterName indexes a cluster's objects by the CAPI Cluster they
// belong to (their cluster-name label).
const indexClusterName = "keel.clusterName"

// indexByCluster indexes the kinds the observer lists per cluster: a list
// by label selector walks every object of the namespace (every cluster's),
// so each observation cost O(clusters) (issue 30).
func (o *Observer) indexByCluster(ctx context.Context) error {
	for _, obj := range []client.Object{&controlplanev1.KubeadmControlPlane{}, &clusterv1.MachineDeployment{}, &clusterv1.Machine{},
		capoObject(kindOpenStackCluster), capoObject(kindOpenStackMachine)} {
		if err := o.cache.IndexField(ctx, obj, indexClusterName, clusterNameOf); err != nil {
			return err
		}
	}
	return nil
}

func clusterNameOf(obj client.Object) []string {
	if name := obj.GetLabels()[labelClusterName]; name != "" {
		return []string{name}
	}
	return nil
}

// ofCluster lists the objects of the CAPI Cluster stackID, by the index.
func ofCluster(stackID string) []client.ListOption {
	return []client.ListOption{client.InNamespace(kube.Namespace), client.MatchingFields{indexClusterName: stackID}}
}

func (o *Observer) enqueue(x any, isCluster bool) {
	if d, ok := x.(toolscache.DeletedFinalStateUnknown); ok {
		x = d.Obj
	}
	obj, ok := x.(client.Object)
	if !ok {
		return
	}
	name := obj.GetLabels()[labelClusterName]
	if isCluster {
		name = obj.GetName()
	}
	if name != "" {
		o.queue.Add(name)
	}
}

func (o *Observer) process(ctx context.Context) bool {
	stackID, quit := o.queue.Get()
	if quit {
		return false
	}
	defer o.queue.Done(stackID)
	// One cluster's error never stops the others: it is retried alone.
	if err := o.observe(ctx, stackID); err != nil {
		o.log.Warn("observing cluster", "stack_id", stackID, "err", err)
		o.queue.AddRateLimited(stackID)
		return true
	}
	o.queue.Forget(stackID)
	return true
}

func (o *Observer) observe(ctx context.Context, stackID string) error {
	var cl clusterv1.Cluster
	err := o.cache.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stackID}, &cl)
	obs := &status.Observation{ObservedAt: time.Now().UTC()}
	uuid := ""
	switch {
	case err == nil:
		uuid = cl.Labels[labelClusterUUID]
		obs.Exists = true
		obs.Deleting = cl.DeletionTimestamp != nil
		fillCluster(obs, &cl)
	case client.IgnoreNotFound(err) == nil:
	default:
		return err
	}
	if uuid == "" {
		if uuid, err = o.sink.ClusterUUIDByStackID(ctx, stackID); err != nil {
			return err
		}
		if uuid == "" {
			return nil // not a keel cluster
		}
	}
	if obs.Exists {
		evs, err := o.eventsOf(ctx, nil, "Cluster", cl.Name, cl.UID, obs.Available)
		if err != nil {
			return err
		}
		if err := o.fillChildren(ctx, obs, stackID, &evs); err != nil {
			return err
		}
		obs.Events = status.CompactEvents(evs)
	}
	o.sink.SetObservation(ctx, uuid, obs)
	return nil
}

func condition(conds []metav1.Condition, t string) *metav1.Condition {
	return meta.FindStatusCondition(conds, t)
}

func isTrue(conds []metav1.Condition, t string) bool {
	c := condition(conds, t)
	return c != nil && c.Status == metav1.ConditionTrue
}

func fillCluster(obs *status.Observation, cl *clusterv1.Cluster) {
	conds := cl.Status.Conditions
	obs.Available = isTrue(conds, clusterv1.ClusterAvailableCondition)
	obs.ControlPlaneAvailable = isTrue(conds, clusterv1.ClusterControlPlaneAvailableCondition)
	obs.InfrastructureReady = isTrue(conds, clusterv1.ClusterInfrastructureReadyCondition)
	if ep := cl.Spec.ControlPlaneEndpoint; ep.Host != "" {
		obs.APIAddress = fmt.Sprintf("https://%s:%d", ep.Host, ep.Port)
	}
	obs.COEVersion = cl.Spec.Topology.Version
	obs.Generation = cl.Generation
	if c := condition(conds, clusterv1.ClusterTopologyReconciledCondition); c != nil {
		if c.Status == metav1.ConditionTrue {
			obs.TopologyGeneration = c.ObservedGeneration
		} else {
			obs.TopologyReason = conditionText(c)
		}
	}
	// The most general cause first; machine-level causes override it below.
	for _, t := range []string{clusterv1.ClusterInfrastructureReadyCondition, clusterv1.ClusterControlPlaneAvailableCondition, clusterv1.ClusterWorkersAvailableCondition, clusterv1.ClusterAvailableCondition} {
		if c := condition(conds, t); c != nil && c.Status != metav1.ConditionTrue {
			obs.Reason = conditionText(c)
			break
		}
	}
}

func conditionText(c *metav1.Condition) string {
	msg := strings.TrimSpace(c.Message)
	if msg == "" {
		return c.Type + ": " + c.Reason
	}
	return c.Type + ": " + c.Reason + ": " + msg
}

// fillChildren also collects the candidate Events of the cluster's objects
// into evs.
func (o *Observer) fillChildren(ctx context.Context, obs *status.Observation, stackID string, evs *[]status.Event) error {
	sel := ofCluster(stackID)
	var kcps controlplanev1.KubeadmControlPlaneList
	if err := o.cache.List(ctx, &kcps, sel...); err != nil {
		return err
	}
	if len(kcps.Items) > 0 {
		k := &kcps.Items[0]
		obs.ControlPlane = replicas(k.Spec.Replicas, k.Status.Replicas, k.Status.ReadyReplicas, k.Status.UpToDateReplicas)
		obs.ControlPlane.Stale = k.Status.ObservedGeneration < k.Generation
		obs.ControlPlane.SpecVersion = k.Spec.Version
	}
	for i := range kcps.Items {
		k := &kcps.Items[i]
		var err error
		if *evs, err = o.eventsOf(ctx, *evs, "KubeadmControlPlane", k.Name, k.UID, isTrue(k.Status.Conditions, clusterv1.AvailableCondition)); err != nil {
			return err
		}
	}
	var mds clusterv1.MachineDeploymentList
	if err := o.cache.List(ctx, &mds, sel...); err != nil {
		return err
	}
	obs.NodeGroups = map[string]status.Replicas{}
	mdOf := map[string]string{} // MachineDeployment name → nodegroup
	for i := range mds.Items {
		md := &mds.Items[i]
		var err error
		if *evs, err = o.eventsOf(ctx, *evs, "MachineDeployment", md.Name, md.UID, isTrue(md.Status.Conditions, clusterv1.AvailableCondition)); err != nil {
			return err
		}
		ng := md.Labels[labelDeploymentName]
		if ng == "" {
			continue
		}
		mdOf[md.Name] = ng
		r := replicas(md.Spec.Replicas, md.Status.Replicas, md.Status.ReadyReplicas, md.Status.UpToDateReplicas)
		r.Stale = md.Status.ObservedGeneration < md.Generation
		r.SpecVersion = md.Spec.Template.Spec.Version
		obs.NodeGroups[ng] = r
	}
	var machines clusterv1.MachineList
	if err := o.cache.List(ctx, &machines, sel...); err != nil {
		return err
	}
	sort.Slice(machines.Items, func(i, j int) bool { return machines.Items[i].Name < machines.Items[j].Name })
	healthy := isTrueKCP(kcps.Items)
	obs.HealthReason = map[string]string{}
	machineReason := ""
	for i := range machines.Items {
		m := &machines.Items[i]
		addr := machineAddress(m)
		_, cp := m.Labels[labelControlPlane]
		if addr != "" {
			if cp {
				obs.MasterAddresses = append(obs.MasterAddresses, addr)
				r := obs.ControlPlane
				r.Addresses = append(r.Addresses, addr)
				obs.ControlPlane = r
			} else {
				obs.NodeAddresses = append(obs.NodeAddresses, addr)
				if ng := m.Labels["cluster.x-k8s.io/deployment-name"]; ng != "" {
					name := mdOf[ng]
					if name == "" {
						name = ng
					}
					r := obs.NodeGroups[name]
					r.Addresses = append(r.Addresses, addr)
					obs.NodeGroups[name] = r
				}
			}
		}
		// Every machine's version, also those being deleted by a rollout:
		// they still run until they are gone. Those being deleted are
		// counted: Cluster API's replica counts leave them out.
		deleting := int64(0)
		if !m.DeletionTimestamp.IsZero() {
			deleting = 1
		}
		if cp {
			obs.ControlPlane.MachineVersions = addVersion(obs.ControlPlane.MachineVersions, m.Spec.Version)
			obs.ControlPlane.Deleting += deleting
		} else if md := m.Labels["cluster.x-k8s.io/deployment-name"]; md != "" {
			name := cmp.Or(mdOf[md], md)
			r := obs.NodeGroups[name]
			r.MachineVersions = addVersion(r.MachineVersions, m.Spec.Version)
			r.Deleting += deleting
			obs.NodeGroups[name] = r
		}
		var err error
		if *evs, err = o.eventsOf(ctx, *evs, "Machine", m.Name, m.UID, isTrue(m.Status.Conditions, clusterv1.MachineReadyCondition)); err != nil {
			return err
		}
		nodeHealthy := isTrue(m.Status.Conditions, clusterv1.MachineNodeHealthyCondition)
		healthy = healthy && nodeHealthy
		obs.HealthReason[m.Name+".Ready"] = boolText(isTrue(m.Status.Conditions, clusterv1.MachineReadyCondition))
		if obs.Failure == "" {
			obs.Failure = machineFailure(m)
		}
		// The most specific cause: a machine that cannot come up says why.
		if machineReason == "" {
			machineReason = machineCause(m)
		}
	}
	// Also while available: a resize's new machine that cannot come up
	// explains why the nodegroup is short (and beats any Event).
	if machineReason != "" {
		obs.Reason = machineReason
	}
	if err := o.fillInfrastructure(ctx, obs, stackID, evs); err != nil {
		return err
	}
	obs.HealthReason["api"] = map[bool]string{true: "ok", false: "nok"}[isTrueKCP(kcps.Items)]
	switch {
	case len(kcps.Items) == 0:
		obs.Health = status.Unknown
	case healthy:
		obs.Health = status.Healthy
	default:
		obs.Health = status.Unhealthy
	}
	return nil
}

func isTrueKCP(kcps []controlplanev1.KubeadmControlPlane) bool {
	return len(kcps) > 0 && isTrue(kcps[0].Status.Conditions, clusterv1.AvailableCondition)
}

func boolText(b bool) string {
	if b {
		return "True"
	}
	return "False"
}

// addVersion adds v to the sorted set vs.
func addVersion(vs []string, v string) []string {
	if v == "" || slices.Contains(vs, v) {
		return vs
	}
	vs = append(vs, v)
	slices.Sort(vs)
	return vs
}

func replicas(desired, current, ready, upToDate *int32) status.Replicas {
	v := func(p *int32) int64 {
		if p == nil {
			return 0
		}
		return int64(*p)
	}
	return status.Replicas{Exists: true, Desired: v(desired), Current: v(current), Ready: v(ready), UpToDate: v(upToDate)}
}

// machineAddress prefers an address users can reach (external), as Magnum
// shows floating IPs when there are some.
func machineAddress(m *clusterv1.Machine) string {
	for _, t := range []clusterv1.MachineAddressType{clusterv1.MachineExternalIP, clusterv1.MachineInternalIP} {
		for _, a := range m.Status.Addresses {
			if a.Type == t {
				return a.Address
			}
		}
	}
	return ""
}

// machineFailure is a Machine's terminal failure ("" if none): CAPO reports
// its server cannot come up (e.g. in ERROR), which fails the operation with
// the machine's own reason, not a summary. Cluster API v1.14 copies the
// infrastructure machine's failureMessage to
// status.deprecated.v1beta1.failureMessage; its v1beta2 controllers no
// longer set phase Failed, so the phase is not read.
func machineFailure(m *clusterv1.Machine) string {
	if m.Status.Deprecated == nil || m.Status.Deprecated.V1Beta1 == nil || m.Status.Deprecated.V1Beta1.FailureMessage == nil {
		return ""
	}
	if c := condition(m.Status.Conditions, clusterv1.MachineReadyCondition); c != nil && c.Status == metav1.ConditionFalse {
		return "Machine " + m.Name + " failed: " + c.Reason + ": " + capoMachineMessage(c.Message)
	}
	return "Machine " + m.Name + " failed: " + capoMachineMessage(*m.Status.Deprecated.V1Beta1.FailureMessage)
}

// machineCause is why a Machine is not up, most specific first: its server
// (InfrastructureReady false), its Node (NodeHealthy not true: Cluster API
// reports a missing Node as Unknown, with the providerID it waits for), then
// its Ready summary.
func machineCause(m *clusterv1.Machine) string {
	for _, t := range []string{clusterv1.MachineInfrastructureReadyCondition, clusterv1.MachineNodeHealthyCondition, clusterv1.MachineReadyCondition} {
		c := condition(m.Status.Conditions, t)
		if c == nil || c.Message == "" || c.Status == metav1.ConditionTrue {
			continue
		}
		if c.Status == metav1.ConditionUnknown && t != clusterv1.MachineNodeHealthyCondition {
			continue
		}
		text := "Machine " + m.Name + ": " + conditionText(c)
		if strings.HasPrefix(c.Message, "Waiting for a Node with spec.providerID") {
			// Only the OpenStack cloud controller manager, one of the
			// cluster's addons, sets a Node's providerID.
			text += " (the OpenStack cloud controller manager sets it once it runs in the cluster)"
		}
		return text
	}
	return ""
}
