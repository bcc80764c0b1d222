package simulator

import (
	"context"
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/api/equality"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

type statusInputs struct {
	mem         *clusterMemory
	paused      bool
	topologyErr error
	deleting    string // what the teardown waits for; "" when not deleting
}

// counts are the replica counts of a group of Machines.
type counts struct {
	desired, replicas, ready, available, upToDate int32
	// notReady describes the first Machine that is not ready.
	notReady string
}

func (c *counts) add(o counts) {
	c.desired += o.desired
	c.replicas += o.replicas
	c.ready += o.ready
	c.available += o.available
	c.upToDate += o.upToDate
	if c.notReady == "" {
		c.notReady = o.notReady
	}
}

func countMachines(g *machineGroup) counts {
	c := counts{desired: g.replicas}
	for _, m := range g.machines {
		if !m.DeletionTimestamp.IsZero() {
			continue
		}
		c.replicas++
		if g.upToDate(m) {
			c.upToDate++
		}
		if meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.MachineReadyCondition) {
			c.ready++
		} else if c.notReady == "" {
			c.notReady = "Machine " + m.Name + " is not ready"
			if rc := meta.FindStatusCondition(m.Status.Conditions, clusterv1.MachineReadyCondition); rc != nil && rc.Message != "" {
				c.notReady += ": " + rc.Reason + ": " + rc.Message
			}
		}
		if meta.IsStatusConditionTrue(m.Status.Conditions, clusterv1.MachineAvailableCondition) {
			c.available++
		}
	}
	return c
}

// updateStatus writes what CAPI's controllers would report, from the
// objects as observed. It writes nothing when nothing changed.
func (r *reconciler) updateStatus(ctx context.Context, obs *observed, d desiredState, in statusInputs) error {
	var groups []*machineGroup
	if obs.kcp != nil {
		groups, _ = machineGroups(obs, d)
	}
	if err := r.updateMachinesUpToDate(ctx, groups); err != nil {
		return err
	}
	var cp, workers counts
	var mdNotAvailable []string
	rollingOut, scalingUp, scalingDown := []string{}, []string{}, []string{}
	cpInitialized := controlPlaneInitialized(obs)
	cpAvailable := false
	for _, g := range groups {
		n := countMachines(g)
		if g.controlPlane {
			cp = n
			cpAvailable = cpInitialized && n.ready > 0
			if err := r.updateKCPStatus(ctx, obs.kcp, n, cpInitialized, cpAvailable); err != nil {
				return err
			}
		} else {
			workers.add(n)
			md := g.owner.(*clusterv1.MachineDeployment)
			if !mdAvailable(md, n) {
				mdNotAvailable = append(mdNotAvailable, md.Name)
			}
			if err := r.updateMDStatus(ctx, md, n); err != nil {
				return err
			}
		}
		name := g.owner.GetName()
		if n.upToDate < n.replicas {
			rollingOut = append(rollingOut, name)
		}
		if n.replicas < n.desired {
			scalingUp = append(scalingUp, name)
		}
		if n.replicas > n.desired {
			scalingDown = append(scalingDown, name)
		}
	}
	return r.updateClusterStatus(ctx, obs, d, in, clusterFacts{
		cp: cp, workers: workers, cpInitialized: cpInitialized, cpAvailable: cpAvailable,
		mdNotAvailable: mdNotAvailable, rollingOut: rollingOut, scalingUp: scalingUp, scalingDown: scalingDown,
	})
}

// updateMachinesUpToDate keeps each Machine's UpToDate condition in line
// with its owner's spec (a rollout makes Machines out of date).
func (r *reconciler) updateMachinesUpToDate(ctx context.Context, groups []*machineGroup) error {
	for _, g := range groups {
		for _, m := range g.machines {
			if !m.DeletionTimestamp.IsZero() || m.Status.Phase == "" {
				continue // a Machine without status yet gets it from its creator
			}
			orig := m.DeepCopy()
			c := cond(clusterv1.MachineUpToDateCondition, true, clusterv1.MachineUpToDateReason, "")
			if !g.upToDate(m) {
				c = cond(clusterv1.MachineUpToDateCondition, false, clusterv1.MachineNotUpToDateReason, outOfDateMessage(g, m))
			}
			if !setConditions(&m.Status.Conditions, m.Generation, c) {
				continue
			}
			if err := r.client.Status().Patch(ctx, m, client.MergeFrom(orig)); client.IgnoreNotFound(err) != nil {
				return fmt.Errorf("writing the status of Machine %s: %w", m.Name, err)
			}
		}
	}
	return nil
}

func outOfDateMessage(g *machineGroup, m *clusterv1.Machine) string {
	var why []string
	if m.Spec.Version != g.version {
		why = append(why, fmt.Sprintf("Version %s, %s required", m.Spec.Version, g.version))
	}
	if t := m.Annotations[annotationTemplate]; t != g.template {
		why = append(why, fmt.Sprintf("OpenStackMachineTemplate %s, %s required", t, g.template))
	}
	return strings.Join(why, "; ")
}

func (r *reconciler) updateKCPStatus(ctx context.Context, kcp *controlplanev1.KubeadmControlPlane, n counts, initialized, available bool) error {
	orig := kcp.DeepCopy()
	st := &kcp.Status
	st.Replicas, st.ReadyReplicas = ptr.To(n.replicas), ptr.To(n.ready)
	st.AvailableReplicas, st.UpToDateReplicas = ptr.To(n.available), ptr.To(n.upToDate)
	st.ObservedGeneration = kcp.Generation
	st.Selector = metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: map[string]string{
		clusterv1.ClusterNameLabel:             kcp.Labels[clusterv1.ClusterNameLabel],
		clusterv1.MachineControlPlaneLabel:     "",
		clusterv1.MachineControlPlaneNameLabel: kcp.Name,
	}})
	if n.upToDate == n.replicas && n.replicas == n.desired {
		st.Version = kcp.Spec.Version
	}
	if initialized {
		st.Initialization.ControlPlaneInitialized = ptr.To(true)
	}
	setConditions(&st.Conditions, kcp.Generation,
		boolCond(controlplanev1.KubeadmControlPlaneInitializedCondition, initialized,
			controlplanev1.KubeadmControlPlaneInitializedReason, controlplanev1.KubeadmControlPlaneNotInitializedReason,
			"", "Waiting for the first control plane Machine"),
		boolCond(controlplanev1.KubeadmControlPlaneAvailableCondition, available,
			controlplanev1.KubeadmControlPlaneAvailableReason, controlplanev1.KubeadmControlPlaneNotAvailableReason,
			"", orDefault(n.notReady, "No control plane Machine is ready")),
	)
	setGroupConditions(&st.Conditions, kcp.Generation, n)
	return r.patchStatusIfChanged(ctx, kcp, orig, &orig.Status, st)
}

// mdAvailable: the rolling update strategy (maxUnavailable 0) wants every
// replica available.
func mdAvailable(md *clusterv1.MachineDeployment, n counts) bool {
	return n.available >= ptr.Deref(md.Spec.Replicas, 1)
}

func (r *reconciler) updateMDStatus(ctx context.Context, md *clusterv1.MachineDeployment, n counts) error {
	orig := md.DeepCopy()
	st := &md.Status
	st.Replicas, st.ReadyReplicas = ptr.To(n.replicas), ptr.To(n.ready)
	st.AvailableReplicas, st.UpToDateReplicas = ptr.To(n.available), ptr.To(n.upToDate)
	st.ObservedGeneration = md.Generation
	st.Selector = metav1.FormatLabelSelector(&md.Spec.Selector)
	desired := ptr.Deref(md.Spec.Replicas, 1)
	// CAPI's MachineDeployment phase compares ready to wanted replicas.
	switch {
	case n.ready < desired:
		st.Phase = string(clusterv1.MachineDeploymentPhaseScalingUp)
	case n.ready > desired:
		st.Phase = string(clusterv1.MachineDeploymentPhaseScalingDown)
	default:
		st.Phase = string(clusterv1.MachineDeploymentPhaseRunning)
	}
	setConditions(&st.Conditions, md.Generation,
		boolCond(clusterv1.MachineDeploymentAvailableCondition, mdAvailable(md, n),
			clusterv1.AvailableReason, clusterv1.NotAvailableReason,
			"", fmt.Sprintf("%d available replicas, at least %d required (spec.strategy.rollout.maxUnavailable is 0)", n.available, desired)+notReadySuffix(n)),
	)
	setGroupConditions(&st.Conditions, md.Generation, n)
	return r.patchStatusIfChanged(ctx, md, orig, &orig.Status, st)
}

func notReadySuffix(n counts) string {
	if n.notReady == "" {
		return ""
	}
	return "; " + n.notReady
}

// setGroupConditions sets the conditions a KubeadmControlPlane and a
// MachineDeployment share.
func setGroupConditions(list *[]metav1.Condition, generation int64, n counts) {
	setConditions(list, generation,
		boolCond(clusterv1.MachinesReadyCondition, n.ready == n.replicas,
			clusterv1.ReadyReason, clusterv1.NotReadyReason, "", orDefault(n.notReady, "Machines are not ready")),
		boolCond(clusterv1.MachinesUpToDateCondition, n.upToDate == n.replicas,
			clusterv1.UpToDateReason, clusterv1.NotUpToDateReason, "", fmt.Sprintf("%d of %d Machines up to date", n.upToDate, n.replicas)),
		boolCond(clusterv1.RollingOutCondition, n.upToDate < n.replicas,
			clusterv1.RollingOutReason, clusterv1.NotRollingOutReason,
			fmt.Sprintf("Rolling out %d not up to date Machines", n.replicas-n.upToDate), ""),
		boolCond(clusterv1.ScalingUpCondition, n.replicas < n.desired,
			clusterv1.ScalingUpReason, clusterv1.NotScalingUpReason,
			fmt.Sprintf("Scaling up from %d to %d replicas", n.replicas, n.desired), ""),
		boolCond(clusterv1.ScalingDownCondition, n.replicas > n.desired,
			clusterv1.ScalingDownReason, clusterv1.NotScalingDownReason,
			fmt.Sprintf("Scaling down from %d to %d replicas", n.replicas, n.desired), ""),
	)
}

func boolCond(typ string, ok bool, reasonTrue, reasonFalse, msgTrue, msgFalse string) metav1.Condition {
	if ok {
		return cond(typ, true, reasonTrue, msgTrue)
	}
	return cond(typ, false, reasonFalse, msgFalse)
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// patchStatusIfChanged writes the status of o when it differs from what was
// read. Merge patches need no resourceVersion: the simulator is the only
// writer of these statuses, so keel's spec applies never make them conflict.
func (r *reconciler) patchStatusIfChanged(ctx context.Context, o, orig client.Object, before, after any) error {
	if equality.Semantic.DeepEqual(before, after) {
		return nil
	}
	if err := r.client.Status().Patch(ctx, o, client.MergeFrom(orig)); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("writing the status of %s %s: %w", o.GetObjectKind().GroupVersionKind().Kind, o.GetName(), err)
	}
	return nil
}

type clusterFacts struct {
	cp, workers                        counts
	cpInitialized, cpAvailable         bool
	mdNotAvailable                     []string
	rollingOut, scalingUp, scalingDown []string
}

func (r *reconciler) updateClusterStatus(ctx context.Context, obs *observed, d desiredState, in statusInputs, f clusterFacts) error {
	c := obs.cluster
	orig := c.DeepCopy()
	st := &c.Status
	infraOK := obs.infra != nil && infraReady(obs.infra)

	if infraOK {
		st.Initialization.InfrastructureProvisioned = ptr.To(true)
	}
	if f.cpInitialized {
		st.Initialization.ControlPlaneInitialized = ptr.To(true)
	}
	switch {
	case in.deleting != "":
		st.Phase = string(clusterv1.ClusterPhaseDeleting)
	case infraOK && c.Spec.ControlPlaneEndpoint.IsValid():
		st.Phase = string(clusterv1.ClusterPhaseProvisioned)
	case obs.infra != nil || obs.kcp != nil:
		st.Phase = string(clusterv1.ClusterPhaseProvisioning)
	default:
		st.Phase = string(clusterv1.ClusterPhasePending)
	}
	if obs.kcp != nil {
		st.ControlPlane = &clusterv1.ClusterControlPlaneStatus{
			DesiredReplicas: ptr.To(f.cp.desired), Replicas: ptr.To(f.cp.replicas),
			UpToDateReplicas: ptr.To(f.cp.upToDate), ReadyReplicas: ptr.To(f.cp.ready),
			AvailableReplicas: ptr.To(f.cp.available),
		}
		st.Workers = &clusterv1.WorkersStatus{
			DesiredReplicas: ptr.To(f.workers.desired), Replicas: ptr.To(f.workers.replicas),
			UpToDateReplicas: ptr.To(f.workers.upToDate), ReadyReplicas: ptr.To(f.workers.ready),
			AvailableReplicas: ptr.To(f.workers.available),
		}
	}

	infraCond := cond(clusterv1.ClusterInfrastructureReadyCondition, true, clusterv1.ClusterInfrastructureReadyReason, "")
	switch {
	case obs.infra == nil:
		infraCond = cond(clusterv1.ClusterInfrastructureReadyCondition, false, clusterv1.ClusterInfrastructureDoesNotExistReason, "OpenStackCluster does not exist yet")
	case !infraOK:
		infraCond = cond(clusterv1.ClusterInfrastructureReadyCondition, false, clusterv1.ClusterInfrastructureNotReadyReason,
			fmt.Sprintf("OpenStackCluster %s: creating the network, router and security groups", obs.infra.GetName()))
	}
	cpAvail := cond(clusterv1.ClusterControlPlaneAvailableCondition, true, clusterv1.ClusterControlPlaneAvailableReason, "")
	switch {
	case obs.kcp == nil:
		cpAvail = cond(clusterv1.ClusterControlPlaneAvailableCondition, false, clusterv1.ClusterControlPlaneDoesNotExistReason, "KubeadmControlPlane does not exist yet")
	case !f.cpAvailable:
		cpAvail = cond(clusterv1.ClusterControlPlaneAvailableCondition, false, clusterv1.ClusterControlPlaneNotAvailableReason,
			fmt.Sprintf("KubeadmControlPlane %s: %s", obs.kcp.Name, orDefault(f.cp.notReady, "no control plane Machine is ready yet")))
	}
	workersCond := cond(clusterv1.ClusterWorkersAvailableCondition, true, clusterv1.ClusterWorkersAvailableReason, "")
	switch {
	case obs.kcp == nil && len(d.workers) > 0:
		workersCond = cond(clusterv1.ClusterWorkersAvailableCondition, false, clusterv1.ClusterWorkersNotAvailableReason, "MachineDeployments do not exist yet")
	case len(f.mdNotAvailable) > 0:
		workersCond = cond(clusterv1.ClusterWorkersAvailableCondition, false, clusterv1.ClusterWorkersNotAvailableReason,
			fmt.Sprintf("MachineDeployments %s not available", strings.Join(f.mdNotAvailable, ", "))+notReadySuffix(f.workers))
	case len(obs.mds) == 0:
		workersCond = cond(clusterv1.ClusterWorkersAvailableCondition, true, clusterv1.ClusterWorkersAvailableNoWorkersReason, "")
	}
	topology := r.topologyCondition(obs, d, in)
	conds := []metav1.Condition{
		infraCond,
		boolCond(clusterv1.ClusterControlPlaneInitializedCondition, f.cpInitialized,
			clusterv1.ClusterControlPlaneInitializedReason, clusterv1.ClusterControlPlaneNotInitializedReason,
			"", "Waiting for the first control plane Machine"),
		cpAvail,
		workersCond,
		boolCond(clusterv1.ClusterControlPlaneMachinesReadyCondition, obs.kcp != nil && f.cp.ready == f.cp.replicas && f.cp.replicas > 0,
			clusterv1.ReadyReason, clusterv1.NotReadyReason, "", orDefault(f.cp.notReady, "No control plane Machine yet")),
		boolCond(clusterv1.ClusterWorkerMachinesReadyCondition, f.workers.ready == f.workers.replicas,
			clusterv1.ReadyReason, clusterv1.NotReadyReason, "", orDefault(f.workers.notReady, "Worker Machines are not ready")),
		boolCond(clusterv1.ClusterRollingOutCondition, len(f.rollingOut) > 0, clusterv1.ClusterRollingOutReason, clusterv1.ClusterNotRollingOutReason,
			"Rolling out "+strings.Join(f.rollingOut, ", "), ""),
		boolCond(clusterv1.ClusterScalingUpCondition, len(f.scalingUp) > 0, clusterv1.ClusterScalingUpReason, clusterv1.ClusterNotScalingUpReason,
			"Scaling up "+strings.Join(f.scalingUp, ", "), ""),
		boolCond(clusterv1.ClusterScalingDownCondition, len(f.scalingDown) > 0, clusterv1.ClusterScalingDownReason, clusterv1.ClusterNotScalingDownReason,
			"Scaling down "+strings.Join(f.scalingDown, ", "), ""),
		boolCond(clusterv1.PausedCondition, in.paused, clusterv1.PausedReason, clusterv1.NotPausedReason,
			"Paused by the "+AnnotationPause+" annotation", ""),
		boolCond(clusterv1.DeletingCondition, in.deleting != "", clusterv1.DeletingReason, clusterv1.NotDeletingReason, in.deleting, ""),
		topology,
	}
	available := cond(clusterv1.ClusterAvailableCondition, true, clusterv1.ClusterAvailableReason, "")
	if in.deleting != "" {
		available = cond(clusterv1.ClusterAvailableCondition, false, clusterv1.ClusterNotAvailableReason, "Cluster is being deleted")
	} else {
		for _, dep := range []metav1.Condition{infraCond, cpAvail, workersCond} {
			if dep.Status != metav1.ConditionTrue {
				available = cond(clusterv1.ClusterAvailableCondition, false, clusterv1.ClusterNotAvailableReason, dep.Type+": "+dep.Message)
				break
			}
		}
	}
	conds = append(conds, available)
	setConditions(&st.Conditions, c.Generation, conds...)
	if topology.Status == metav1.ConditionTrue || in.deleting != "" {
		st.ObservedGeneration = c.Generation
	}
	isAvailable := available.Status == metav1.ConditionTrue
	r.mu.Lock()
	becameAvailable := isAvailable && !in.mem.available &&
		!meta.IsStatusConditionTrue(orig.Status.Conditions, clusterv1.ClusterAvailableCondition)
	r.mu.Unlock()
	if !equality.Semantic.DeepEqual(orig.Status, c.Status) {
		if err := r.client.Status().Patch(ctx, c, client.MergeFrom(orig)); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("writing the status of cluster %s: %w", c.Name, err)
		}
	}
	r.mu.Lock()
	in.mem.available = isAvailable
	r.mu.Unlock()
	if becameAvailable {
		r.event(ctx, c, eventNormal, EventProvisioned, "Cluster %s is available: %d control plane and %d worker Machines ready, API server at %s",
			c.Name, f.cp.ready, f.workers.ready, c.Spec.ControlPlaneEndpoint.String())
	}
	return nil
}

// topologyCondition says whether the KubeadmControlPlane and the
// MachineDeployments say what the topology asks for.
func (r *reconciler) topologyCondition(obs *observed, d desiredState, in statusInputs) metav1.Condition {
	typ := clusterv1.ClusterTopologyReconciledCondition
	switch {
	case in.deleting != "":
		return cond(typ, false, clusterv1.ClusterTopologyReconciledDeletingReason, "Cluster is being deleted")
	case in.topologyErr != nil:
		return cond(typ, false, clusterv1.ClusterTopologyReconciledFailedReason, in.topologyErr.Error())
	case in.paused:
		return cond(typ, false, clusterv1.ClusterTopologyReconcilePausedReason, "Paused by the "+AnnotationPause+" annotation")
	case obs.kcp == nil:
		return cond(typ, false, clusterv1.ClusterTopologyReconciledClusterCreatingReason, "Waiting for the infrastructure")
	}
	if obs.kcp.Spec.Version != d.version {
		return cond(typ, false, clusterv1.ClusterTopologyReconciledControlPlaneUpgradePendingReason, "Control plane upgrade to "+d.version+" pending")
	}
	for _, g := range d.workers {
		md := obs.mdFor(g.name)
		if md == nil {
			return cond(typ, false, clusterv1.ClusterTopologyReconciledMachineDeploymentsCreatePendingReason, "MachineDeployment "+g.name+" is being created")
		}
		if md.Spec.Template.Spec.Version != d.version {
			return cond(typ, false, clusterv1.ClusterTopologyReconciledMachineDeploymentsUpgradePendingReason,
				fmt.Sprintf("MachineDeployment %s waits for the control plane to run %s", md.Name, d.version))
		}
	}
	return cond(typ, true, clusterv1.ClusterTopologyReconcileSucceededReason, "")
}
