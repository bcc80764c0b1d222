package simulator

import (
	"context"
	"fmt"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"
	"sigs.k8s.io/controller-runtime/pkg/reconcile"
)

// teardownStage is one stage of a cluster's deletion, in CAPI's order:
// workers, then the control plane, then the infrastructure.
type teardownStage struct {
	waitingFor string // the Deleting condition message
	objects    []client.Object
}

// teardownStages lists what is left to delete, first stage first.
func teardownStages(obs *observed) []teardownStage {
	var workers, mds, cpMachines, cp, infra []client.Object
	for _, m := range obs.machines {
		if _, isCP := m.Labels[clusterv1.MachineControlPlaneLabel]; isCP {
			cpMachines = append(cpMachines, m)
		} else {
			workers = append(workers, m)
		}
		if om, ok := obs.infraMachines[m.Name]; ok {
			if _, isCP := m.Labels[clusterv1.MachineControlPlaneLabel]; isCP {
				cpMachines = append(cpMachines, om)
			} else {
				workers = append(workers, om)
			}
		}
	}
	for _, md := range obs.mds {
		mds = append(mds, md)
	}
	if obs.kcp != nil {
		cp = append(cp, obs.kcp)
	}
	for _, om := range obs.infraMachines {
		cp = append(cp, om) // leftovers without a Machine
	}
	for _, t := range obs.templates {
		cp = append(cp, t)
	}
	if obs.infra != nil {
		infra = append(infra, obs.infra)
	}
	var stages []teardownStage
	add := func(msg string, objs []client.Object) {
		if len(objs) > 0 {
			stages = append(stages, teardownStage{waitingFor: msg, objects: objs})
		}
	}
	add("Deleting worker Machines", workers)
	add("Deleting MachineDeployments", mds)
	add("Deleting control plane Machines", cpMachines)
	add("Deleting the KubeadmControlPlane and machine templates", cp)
	add("Deleting the OpenStackCluster", infra)
	return stages
}

// reconcileDelete tears a deleted Cluster down over a few steps, then
// removes the finalizer so that the Cluster goes away, as CAPI does. The
// pause annotation does not hold it: a timed-out cluster must be deletable.
func (r *reconciler) reconcileDelete(ctx context.Context, obs *observed, mem *clusterMemory) (reconcile.Result, error) {
	c := obs.cluster
	stages := teardownStages(obs)
	waitingFor := "Removing the finalizer"
	if len(stages) > 0 {
		waitingFor = stages[0].waitingFor
	}
	wasDeleting := c.Status.Phase == string(clusterv1.ClusterPhaseDeleting)
	d, _ := desiredFromTopology(c)
	if err := r.updateStatus(ctx, obs, d, statusInputs{mem: mem, deleting: waitingFor}); err != nil {
		return reconcile.Result{}, err
	}
	r.mu.Lock()
	announce := !wasDeleting && !mem.deleting
	mem.deleting = true
	r.mu.Unlock()
	if announce {
		r.event(ctx, c, eventNormal, EventDeleting, "Deleting cluster %s: workers, then the control plane, then the infrastructure", c.Name)
	}
	r.mu.Lock()
	due := r.now().Sub(mem.lastStep) >= r.o.StepDelay
	r.mu.Unlock()
	if !due {
		return reconcile.Result{RequeueAfter: r.untilNextStep(mem)}, nil
	}
	if len(stages) == 0 {
		orig := c.DeepCopy()
		controllerutil.RemoveFinalizer(c, clusterv1.ClusterFinalizer)
		if err := r.client.Patch(ctx, c, client.MergeFromWithOptions(orig, client.MergeFromWithOptimisticLock{}), client.FieldOwner(FieldManager)); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, fmt.Errorf("removing the finalizer of cluster %s: %w", c.Name, err)
		}
		return reconcile.Result{}, nil
	}
	for _, o := range stages[0].objects {
		if err := r.client.Delete(ctx, o); client.IgnoreNotFound(err) != nil {
			return reconcile.Result{}, fmt.Errorf("deleting %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
		}
	}
	r.mu.Lock()
	mem.lastStep = r.now()
	r.mu.Unlock()
	return reconcile.Result{RequeueAfter: r.o.StepDelay}, nil
}
