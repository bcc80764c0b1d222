package simulator

import (
	"context"
	"fmt"
	"sort"
	"sync"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/types"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/log"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// expectationTimeout bounds how long a step waits for the cache to show the
// previous step's writes; past it the writes are assumed overtaken by others
// (someone deleted the new Machine, say) and the simulator goes on.
const expectationTimeout = 30 * time.Second

// reconciler simulates the controllers of one namespace's Clusters.
type reconciler struct {
	client client.Client
	o      Options
	now    func() time.Time

	mu       sync.Mutex
	clusters map[types.UID]*clusterMemory
}

// clusterMemory is what the simulator remembers of a cluster between
// reconciles. Losing it (a restart) only costs one step's pacing: everything
// else is read back from the objects.
type clusterMemory struct {
	// lastStep is when the last provisioning step acted: steps are at least
	// StepDelay apart whatever wakes the reconciler up.
	lastStep time.Time
	// expect holds the Machine writes of the last step the cache must show
	// before the next step decides anything from it, so that a stale cache
	// never makes a second Machine or deletes one too many.
	expect      map[string]machineExpectation
	expectSince time.Time
	// endpoint is the control plane host reserved for the cluster.
	endpoint string
	// available and deleting remember what was announced by an Event, so
	// that a status read from a cache that lags behind the simulator's own
	// writes does not announce it twice.
	available, deleting bool
}

// machineExpectation is the state a Machine written by the last step must
// show in the cache.
type machineExpectation struct {
	gone  bool   // deleted
	phase string // created or provisioned: its status phase
}

func newReconciler(c client.Client, o Options) *reconciler {
	return &reconciler{client: c, o: o, now: time.Now, clusters: map[types.UID]*clusterMemory{}}
}

func (r *reconciler) memory(uid types.UID) *clusterMemory {
	r.mu.Lock()
	defer r.mu.Unlock()
	m, ok := r.clusters[uid]
	if !ok {
		m = &clusterMemory{}
		r.clusters[uid] = m
	}
	return m
}

// forgetGone drops the memory of clusters that no longer exist.
func (r *reconciler) forgetGone(ctx context.Context, key types.NamespacedName) {
	var list clusterv1.ClusterList
	if err := r.client.List(ctx, &list, client.InNamespace(key.Namespace)); err != nil {
		return
	}
	live := map[types.UID]bool{}
	for i := range list.Items {
		live[list.Items[i].UID] = true
	}
	r.mu.Lock()
	defer r.mu.Unlock()
	for uid := range r.clusters {
		if !live[uid] {
			delete(r.clusters, uid)
		}
	}
}

// observed is everything the simulator has made for one Cluster, read from
// the cache at the start of a reconcile.
type observed struct {
	cluster       *clusterv1.Cluster
	infra         *infrav1.OpenStackCluster
	kcp           *controlplanev1.KubeadmControlPlane
	mds           []*clusterv1.MachineDeployment
	machines      []*clusterv1.Machine // oldest first
	infraMachines map[string]*infrav1.OpenStackMachine
	templates     []*infrav1.OpenStackMachineTemplate
}

func (o *observed) mdFor(topologyName string) *clusterv1.MachineDeployment {
	for _, md := range o.mds {
		if md.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel] == topologyName {
			return md
		}
	}
	return nil
}

func (o *observed) controlPlaneMachines() []*clusterv1.Machine {
	var out []*clusterv1.Machine
	for _, m := range o.machines {
		if _, ok := m.Labels[clusterv1.MachineControlPlaneLabel]; ok {
			out = append(out, m)
		}
	}
	return out
}

func (o *observed) machinesOfMD(md *clusterv1.MachineDeployment) []*clusterv1.Machine {
	var out []*clusterv1.Machine
	for _, m := range o.machines {
		if m.Labels[clusterv1.MachineDeploymentNameLabel] == md.Name {
			out = append(out, m)
		}
	}
	return out
}

func (r *reconciler) observe(ctx context.Context, c *clusterv1.Cluster) (*observed, error) {
	obs := &observed{cluster: c, infraMachines: map[string]*infrav1.OpenStackMachine{}}
	sel := client.MatchingLabels{clusterv1.ClusterNameLabel: c.Name}
	in := client.InNamespace(c.Namespace)

	infras := &infrav1.OpenStackClusterList{}
	if err := r.client.List(ctx, infras, in, sel); err != nil {
		return nil, fmt.Errorf("listing OpenStackClusters: %w", err)
	}
	for i := range infras.Items {
		if obs.infra == nil || olderThan(&infras.Items[i], obs.infra) {
			obs.infra = &infras.Items[i]
		}
	}
	var kcps controlplanev1.KubeadmControlPlaneList
	if err := r.client.List(ctx, &kcps, in, sel); err != nil {
		return nil, fmt.Errorf("listing KubeadmControlPlanes: %w", err)
	}
	for i := range kcps.Items {
		if obs.kcp == nil || olderThan(&kcps.Items[i], obs.kcp) {
			obs.kcp = &kcps.Items[i]
		}
	}
	var mds clusterv1.MachineDeploymentList
	if err := r.client.List(ctx, &mds, in, sel); err != nil {
		return nil, fmt.Errorf("listing MachineDeployments: %w", err)
	}
	for i := range mds.Items {
		obs.mds = append(obs.mds, &mds.Items[i])
	}
	var machines clusterv1.MachineList
	if err := r.client.List(ctx, &machines, in, sel); err != nil {
		return nil, fmt.Errorf("listing Machines: %w", err)
	}
	for i := range machines.Items {
		obs.machines = append(obs.machines, &machines.Items[i])
	}
	sort.SliceStable(obs.machines, func(i, j int) bool { return olderThan(obs.machines[i], obs.machines[j]) })
	oms := &infrav1.OpenStackMachineList{}
	if err := r.client.List(ctx, oms, in, sel); err != nil {
		return nil, fmt.Errorf("listing OpenStackMachines: %w", err)
	}
	for i := range oms.Items {
		obs.infraMachines[oms.Items[i].GetName()] = &oms.Items[i]
	}
	tmpls := &infrav1.OpenStackMachineTemplateList{}
	if err := r.client.List(ctx, tmpls, in, sel); err != nil {
		return nil, fmt.Errorf("listing OpenStackMachineTemplates: %w", err)
	}
	for i := range tmpls.Items {
		obs.templates = append(obs.templates, &tmpls.Items[i])
	}
	return obs, nil
}

func olderThan(a, b client.Object) bool {
	ta, tb := a.GetCreationTimestamp(), b.GetCreationTimestamp()
	if !ta.Equal(&tb) {
		return ta.Before(&tb)
	}
	return a.GetName() < b.GetName()
}

// Reconcile brings one Cluster one step closer to what its topology asks
// for, and writes the status the real controllers would report.
func (r *reconciler) Reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	res, err := r.reconcile(ctx, req)
	if apierrors.IsConflict(err) {
		// Someone (keel applying the Cluster) wrote in between: read again
		// soon, without the error backoff.
		return reconcile.Result{RequeueAfter: r.o.StepDelay / 10}, nil
	}
	return res, err
}

func (r *reconciler) reconcile(ctx context.Context, req reconcile.Request) (reconcile.Result, error) {
	logger := log.FromContext(ctx)
	var c clusterv1.Cluster
	if err := r.client.Get(ctx, req.NamespacedName, &c); err != nil {
		if apierrors.IsNotFound(err) {
			r.forgetGone(ctx, req.NamespacedName)
			return reconcile.Result{}, nil
		}
		return reconcile.Result{}, fmt.Errorf("reading cluster %s: %w", req, err)
	}
	if !c.Spec.Topology.IsDefined() {
		return reconcile.Result{}, nil // not a topology-managed Cluster: not ours
	}
	obs, err := r.observe(ctx, &c)
	if err != nil {
		return reconcile.Result{}, err
	}
	mem := r.memory(c.UID)
	if !c.DeletionTimestamp.IsZero() {
		if !controllerutil.ContainsFinalizer(&c, clusterv1.ClusterFinalizer) {
			return reconcile.Result{}, nil
		}
		return r.reconcileDelete(ctx, obs, mem)
	}
	if err := r.ensureFinalizer(ctx, &c); err != nil {
		return reconcile.Result{}, err
	}
	desired, derr := desiredFromTopology(&c)
	paused := c.Annotations[AnnotationPause] == "true"
	busy := false
	if derr == nil && !paused {
		if err := r.ensureEndpoint(ctx, obs, mem); err != nil {
			return reconcile.Result{}, err
		}
		changed, err := r.syncTopology(ctx, obs, desired)
		if err != nil {
			return reconcile.Result{}, err
		}
		busy = changed
		stepped, wait, err := r.stepIfDue(ctx, obs, desired, mem)
		if err != nil {
			return reconcile.Result{}, err
		}
		busy = busy || stepped || wait
	}
	if derr != nil {
		logger.Info("cannot read the cluster topology", "error", derr.Error())
	}
	if err := r.updateStatus(ctx, obs, desired, statusInputs{mem: mem, paused: paused, topologyErr: derr}); err != nil {
		return reconcile.Result{}, err
	}
	if busy {
		return reconcile.Result{RequeueAfter: r.untilNextStep(mem)}, nil
	}
	return reconcile.Result{}, nil
}

// untilNextStep is how long to wait before the next step may act.
func (r *reconciler) untilNextStep(mem *clusterMemory) time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	d := r.o.StepDelay - r.now().Sub(mem.lastStep)
	if d < r.o.StepDelay/10 {
		d = r.o.StepDelay / 10
	}
	return d
}

// stepIfDue runs one provisioning step when the last one is StepDelay old
// and the cache shows its writes. It reports whether the step acted and
// whether it had to wait (both mean: come back later).
func (r *reconciler) stepIfDue(ctx context.Context, obs *observed, d desiredState, mem *clusterMemory) (acted, wait bool, err error) {
	r.mu.Lock()
	due := r.now().Sub(mem.lastStep) >= r.o.StepDelay
	met := r.expectationsMetLocked(obs, mem)
	r.mu.Unlock()
	if !due || !met {
		return false, true, nil
	}
	s := &step{r: r, obs: obs, desired: d, expect: map[string]machineExpectation{}}
	err = s.run(ctx)
	if s.acted {
		r.mu.Lock()
		mem.lastStep = r.now()
		mem.expect, mem.expectSince = s.expect, r.now()
		r.mu.Unlock()
	}
	return s.acted, false, err
}

// expectationsMetLocked reports whether the cache shows the Machine writes of
// the previous step.
func (r *reconciler) expectationsMetLocked(obs *observed, mem *clusterMemory) bool {
	if len(mem.expect) == 0 {
		return true
	}
	if r.now().Sub(mem.expectSince) > expectationTimeout {
		mem.expect = nil
		return true
	}
	byName := map[string]*clusterv1.Machine{}
	for _, m := range obs.machines {
		byName[m.Name] = m
	}
	for name, e := range mem.expect {
		m, found := byName[name]
		if e.gone {
			if found && m.DeletionTimestamp.IsZero() {
				return false
			}
			continue
		}
		if !found || (e.phase != "" && m.Status.Phase != e.phase) {
			return false
		}
	}
	mem.expect = nil
	return true
}

// ensureFinalizer makes deleting the Cluster wait for the simulated teardown,
// as CAPI's cluster controller does.
func (r *reconciler) ensureFinalizer(ctx context.Context, c *clusterv1.Cluster) error {
	if controllerutil.ContainsFinalizer(c, clusterv1.ClusterFinalizer) {
		return nil
	}
	orig := c.DeepCopy()
	controllerutil.AddFinalizer(c, clusterv1.ClusterFinalizer)
	// Optimistic lock: the finalizer list is replaced as a whole by a merge patch.
	if err := r.client.Patch(ctx, c, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); err != nil {
		return fmt.Errorf("adding finalizer to cluster %s: %w", c.Name, err)
	}
	return nil
}
