package simulator

import (
	"context"
	"fmt"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	"k8s.io/apimachinery/pkg/util/uuid"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	capoerrors "sigs.k8s.io/cluster-api-provider-openstack/pkg/utils/errors"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Annotations the simulator keeps on the Machines it creates.
const (
	// annotationTemplate records the OpenStackMachineTemplate a Machine was
	// built from: with its spec.version it decides whether the Machine is up
	// to date (CAPI compares MachineSet template hashes instead).
	annotationTemplate = "simulator.keel.openkeel.io/template"
	// annotationInternalIP is the address the Machine gets once provisioned,
	// chosen when it is created so that it is unique within the cluster.
	annotationInternalIP = "simulator.keel.openkeel.io/internal-ip"
)

// ReasonInstanceCreateFailed is the Machine condition reason of an injected
// failure whose annotation value is not itself a condition reason.
const ReasonInstanceCreateFailed = "InstanceCreateFailed"

// Event reasons on the Cluster.
const (
	EventProvisioning        = "Provisioning"
	EventInfrastructureReady = "InfrastructureReady"
	EventProvisioned         = "Provisioned"
	EventMachineCreated      = "MachineCreated"
	EventMachineProvisioned  = "MachineProvisioned"
	EventMachineFailed       = "MachineFailed"
	EventMachineDeleted      = "MachineDeleted"
	EventDeleting            = "Deleting"
)

// step is one provisioning step of one cluster: at most one Machine created
// or deleted per KubeadmControlPlane or MachineDeployment, after the Machines
// created by the previous step have finished provisioning.
type step struct {
	r       *reconciler
	obs     *observed
	desired desiredState
	fault   *fault
	// expect collects the Machine writes the next step must see in the cache.
	expect map[string]machineExpectation
	acted  bool
	// usedIPs holds the internal addresses of the cluster's Machines.
	usedIPs map[string]bool
}

// machineGroup is the Machines of the KubeadmControlPlane or of one
// MachineDeployment, with what their owner asks for.
type machineGroup struct {
	controlPlane bool
	owner        client.Object
	ownerKind    string
	// description names the group in events ("control plane", "MachineDeployment x").
	description string
	replicas    int32
	version     string
	template    string
	spec        machineSpec
	// removed: the MachineDeployment is no longer in the topology.
	removed     bool
	labels      map[string]string
	annotations map[string]string
	machines    []*clusterv1.Machine
}

func (g *machineGroup) upToDate(m *clusterv1.Machine) bool {
	return m.Spec.Version == g.version && m.Annotations[annotationTemplate] == g.template
}

func (s *step) run(ctx context.Context) error {
	c := s.obs.cluster
	s.fault = parseFault(c.Annotations[AnnotationFailMachines])
	if s.obs.infra == nil {
		return s.createInfrastructure(ctx)
	}
	if !infraReady(s.obs.infra) {
		return s.markInfrastructureReady(ctx)
	}
	if s.obs.kcp == nil {
		return nil // syncTopology creates it
	}
	s.usedIPs = map[string]bool{}
	for _, m := range s.obs.machines {
		s.usedIPs[m.Annotations[annotationInternalIP]] = true
	}
	groups, orphans := machineGroups(s.obs, s.desired)
	cpInitialized := controlPlaneInitialized(s.obs)
	for _, g := range groups {
		if err := s.stepGroup(ctx, g, cpInitialized); err != nil {
			return err
		}
	}
	// Machines whose owner is gone (deleted by someone else) go too, as the
	// garbage collector would delete them under CAPI.
	for _, m := range orphans {
		if err := s.deleteMachine(ctx, m, "its owner no longer exists"); err != nil {
			return err
		}
	}
	return s.collectTemplates(ctx, groups)
}

// createInfrastructure is CAPI's topology controller creating the
// OpenStackCluster from the ClusterClass template.
func (s *step) createInfrastructure(ctx context.Context) error {
	c := s.obs.cluster
	name := boundedName(c.Name, stableSuffix(string(c.UID), "infrastructure"))
	u := &infrav1.OpenStackCluster{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: c.Namespace, Name: name,
			Labels:          map[string]string{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""},
			OwnerReferences: []metav1.OwnerReference{ownerRef(c, "Cluster", false)},
		},
		Spec: openStackClusterSpec(s.desired.identity),
	}
	if err := s.r.client.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating OpenStackCluster %s: %w", name, err)
	}
	s.acted = true
	s.r.event(ctx, c, eventNormal, EventProvisioning, "Provisioning cluster %s: creating OpenStackCluster %s (network, router, security groups)", c.Name, name)
	return nil
}

// markInfrastructureReady is CAPO finishing the cluster's network, then CAPI
// copying the API server address to the Cluster.
func (s *step) markInfrastructureReady(ctx context.Context) error {
	u := s.obs.infra
	orig := u.DeepCopy()
	u.Status.Ready = true
	u.Status.Initialization = &infrav1.ClusterInitialization{Provisioned: true}
	u.Status.Conditions = clusterv1beta1.Conditions{
		v1beta1Condition("Ready", true, "", "", ""),
		v1beta1Condition("NetworkReady", true, "", "", ""),
		v1beta1Condition("APIEndpointReady", true, "", "", ""),
	}
	if err := s.r.client.Status().Patch(ctx, u, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("marking OpenStackCluster %s ready: %w", u.GetName(), err)
	}
	s.acted = true
	mem := s.r.memory(s.obs.cluster.UID)
	if err := s.r.ensureEndpoint(ctx, s.obs, mem); err != nil {
		return err
	}
	c := s.obs.cluster
	s.r.event(ctx, c, eventNormal, EventInfrastructureReady, "OpenStackCluster %s is ready; control plane endpoint %s", u.GetName(), c.Spec.ControlPlaneEndpoint.String())
	return nil
}

// machineGroups sorts the cluster's Machines by owner.
func machineGroups(obs *observed, d desiredState) (groups []*machineGroup, orphans []*clusterv1.Machine) {
	c := obs.cluster
	owned := map[string]bool{}
	kcp := obs.kcp
	cp := &machineGroup{
		controlPlane: true,
		owner:        kcp,
		ownerKind:    "KubeadmControlPlane",
		description:  "the control plane",
		replicas:     ptr.Deref(kcp.Spec.Replicas, 1),
		version:      kcp.Spec.Version,
		template:     kcp.Spec.MachineTemplate.Spec.InfrastructureRef.Name,
		spec:         d.controlPlane.machine,
		labels: mergeMaps(kcp.Spec.MachineTemplate.ObjectMeta.Labels, map[string]string{
			clusterv1.ClusterNameLabel:             c.Name,
			clusterv1.MachineControlPlaneLabel:     "",
			clusterv1.MachineControlPlaneNameLabel: kcp.Name,
			clusterv1.ClusterTopologyOwnedLabel:    "",
		}),
		annotations: kcp.Spec.MachineTemplate.ObjectMeta.Annotations,
	}
	for _, m := range obs.controlPlaneMachines() {
		if m.Labels[clusterv1.MachineControlPlaneNameLabel] == kcp.Name {
			cp.machines = append(cp.machines, m)
			owned[m.Name] = true
		}
	}
	groups = append(groups, cp)

	wanted := map[string]desiredGroup{}
	for _, g := range d.workers {
		wanted[g.name] = g
	}
	for _, md := range obs.mds {
		topo := md.Labels[clusterv1.ClusterTopologyMachineDeploymentNameLabel]
		dg, inTopology := wanted[topo]
		g := &machineGroup{
			owner:       md,
			ownerKind:   "MachineDeployment",
			description: "MachineDeployment " + md.Name,
			replicas:    ptr.Deref(md.Spec.Replicas, 1),
			version:     md.Spec.Template.Spec.Version,
			template:    md.Spec.Template.Spec.InfrastructureRef.Name,
			spec:        dg.machine,
			removed:     !inTopology || !md.DeletionTimestamp.IsZero(),
			labels:      md.Spec.Template.Labels,
			annotations: md.Spec.Template.Annotations,
		}
		for _, m := range obs.machinesOfMD(md) {
			g.machines = append(g.machines, m)
			owned[m.Name] = true
		}
		groups = append(groups, g)
	}
	for _, m := range obs.machines {
		if !owned[m.Name] {
			orphans = append(orphans, m)
		}
	}
	return groups, orphans
}

// controlPlaneInitialized: kubeadm init finished on the first control plane
// Machine; only then can workers join.
func controlPlaneInitialized(obs *observed) bool {
	if obs.kcp != nil && ptr.Deref(obs.kcp.Status.Initialization.ControlPlaneInitialized, false) {
		return true
	}
	for _, m := range obs.controlPlaneMachines() {
		if m.Status.Phase == string(clusterv1.MachinePhaseRunning) {
			return true
		}
	}
	return false
}

func isProvisioning(m *clusterv1.Machine) bool {
	return m.DeletionTimestamp.IsZero() && (m.Status.Phase == "" ||
		m.Status.Phase == string(clusterv1.MachinePhasePending) ||
		m.Status.Phase == string(clusterv1.MachinePhaseProvisioning))
}

func isFailed(m *clusterv1.Machine) bool {
	return m.Status.Phase == string(clusterv1.MachinePhaseFailed)
}

// stepGroup is the KubeadmControlPlane or MachineDeployment controller's
// share of a step: finish provisioning the Machines created by the previous
// step, then create or delete at most one Machine (rolling updates surge by
// one and never go below the wanted count of Running Machines).
func (s *step) stepGroup(ctx context.Context, g *machineGroup, cpInitialized bool) error {
	var active []*clusterv1.Machine
	for _, m := range g.machines {
		if !m.DeletionTimestamp.IsZero() {
			continue
		}
		if isProvisioning(m) {
			if err := s.finishProvisioning(ctx, g, m); err != nil {
				return err
			}
		}
		active = append(active, m)
	}
	if g.removed {
		return s.removeGroup(ctx, g, active)
	}
	var failed, outdated []*clusterv1.Machine
	for _, m := range active {
		if isFailed(m) {
			failed = append(failed, m)
		}
		if !g.upToDate(m) {
			outdated = append(outdated, m)
		}
	}
	if len(failed) > 0 {
		if s.fault != nil {
			// Keep the failure visible: no progress while failures are injected.
			return nil
		}
		// The failure injection was lifted: remediate, as a
		// MachineHealthCheck would, by replacing the failed Machine.
		return s.deleteMachine(ctx, failed[0], "it failed and is being remediated")
	}
	n := int32(len(active))
	switch {
	case n > g.replicas:
		m := pickForDeletion(active, g)
		why := "scaling down"
		if !g.upToDate(m) {
			why = "it is out of date"
		}
		return s.deleteMachine(ctx, m, why)
	case n < g.replicas:
		if !g.controlPlane && !cpInitialized {
			return nil // workers join once kubeadm init has run
		}
		return s.createMachine(ctx, g, "scaling up")
	case len(outdated) > 0 && g.replicas > 0:
		return s.createMachine(ctx, g, "rolling out "+describeOutdated(g, outdated[0]))
	}
	return nil
}

func describeOutdated(g *machineGroup, m *clusterv1.Machine) string {
	if m.Spec.Version != g.version {
		return fmt.Sprintf("Kubernetes %s to replace %s (%s)", g.version, m.Name, m.Spec.Version)
	}
	return fmt.Sprintf("template %s to replace %s", g.template, m.Name)
}

// pickForDeletion chooses the Machine a scale down removes: those annotated
// cluster.x-k8s.io/delete-machine first, then failed, then out of date ones,
// then the oldest.
func pickForDeletion(ms []*clusterv1.Machine, g *machineGroup) *clusterv1.Machine {
	rank := func(m *clusterv1.Machine) int {
		switch {
		case hasAnnotation(m, clusterv1.DeleteMachineAnnotation):
			return 0
		case isFailed(m):
			return 1
		case !g.upToDate(m):
			return 2
		}
		return 3
	}
	sorted := append([]*clusterv1.Machine(nil), ms...)
	sort.SliceStable(sorted, func(i, j int) bool {
		ri, rj := rank(sorted[i]), rank(sorted[j])
		if ri != rj {
			return ri < rj
		}
		return olderThan(sorted[i], sorted[j])
	})
	return sorted[0]
}

func hasAnnotation(o client.Object, key string) bool {
	_, ok := o.GetAnnotations()[key]
	return ok
}

// removeGroup tears down a MachineDeployment dropped from the topology: its
// Machines first, then (a step later) the MachineDeployment itself, so that
// the MachineDeployment disappears last, as under CAPI.
func (s *step) removeGroup(ctx context.Context, g *machineGroup, active []*clusterv1.Machine) error {
	if len(active) > 0 {
		for _, m := range active {
			if err := s.deleteMachine(ctx, m, "its MachineDeployment was removed from the topology"); err != nil {
				return err
			}
		}
		return nil
	}
	if err := s.r.client.Delete(ctx, g.owner); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting %s %s: %w", g.ownerKind, g.owner.GetName(), err)
	}
	s.acted = true
	return nil
}

// nextIP picks the lowest free address of the cluster's 10.0.0.0/16 node
// network (from 10.0.0.10, as a Neutron subnet leaves the first ones to the
// router and DHCP).
func (s *step) nextIP() string {
	for i := 0; ; i++ {
		ip := fmt.Sprintf("10.0.%d.%d", i/240, 10+i%240)
		if !s.usedIPs[ip] {
			s.usedIPs[ip] = true
			return ip
		}
	}
}

// createMachine is the owner's controller creating a Machine and its
// OpenStackMachine; the next step finishes (or fails) its provisioning.
func (s *step) createMachine(ctx context.Context, g *machineGroup, why string) error {
	c := s.obs.cluster
	name := boundedName(g.owner.GetName(), utilrand.String(5))
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{
			Name:      name,
			Namespace: c.Namespace,
			Labels:    mergeMaps(g.labels, map[string]string{clusterv1.ClusterNameLabel: c.Name}),
			Annotations: mergeMaps(g.annotations, map[string]string{
				annotationTemplate:   g.template,
				annotationInternalIP: s.nextIP(),
			}),
			OwnerReferences: []metav1.OwnerReference{ownerRef(g.owner, g.ownerKind, true)},
		},
		Spec: clusterv1.MachineSpec{
			ClusterName: c.Name,
			// No KubeadmConfig is simulated: nothing boots.
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
			InfrastructureRef: infraRef(kindOpenStackMachine, name),
			Version:           g.version,
		},
	}
	if err := s.r.client.Create(ctx, m); err != nil {
		return fmt.Errorf("creating Machine %s: %w", name, err)
	}
	s.acted = true
	// Expect the Machine only to exist: a Machine without status is still
	// provisioning for the next step.
	s.expect[name] = machineExpectation{}
	if err := s.ensureInfraMachine(ctx, g, m); err != nil {
		return err
	}
	orig := m.DeepCopy()
	m.Status = clusterv1.MachineStatus{
		Phase: string(clusterv1.MachinePhaseProvisioning),
		Initialization: clusterv1.MachineInitializationStatus{
			BootstrapDataSecretCreated: ptr.To(true),
			InfrastructureProvisioned:  ptr.To(false),
		},
		ObservedGeneration: m.Generation,
	}
	setConditions(&m.Status.Conditions, m.Generation,
		cond(clusterv1.MachineBootstrapConfigReadyCondition, true, clusterv1.MachineBootstrapDataSecretProvidedReason, ""),
		cond(clusterv1.MachineInfrastructureReadyCondition, false, clusterv1.MachineInfrastructureNotReadyReason, "OpenStackMachine "+name+": creating the server"),
		cond(clusterv1.MachineNodeReadyCondition, false, clusterv1.MachineNodeDoesNotExistReason, "Waiting for the node"),
		cond(clusterv1.MachineNodeHealthyCondition, false, clusterv1.MachineNodeDoesNotExistReason, "Waiting for the node"),
		cond(clusterv1.MachineReadyCondition, false, clusterv1.NotReadyReason, "Provisioning"),
		cond(clusterv1.MachineAvailableCondition, false, clusterv1.NotAvailableReason, "Not ready yet"),
		cond(clusterv1.MachineUpToDateCondition, true, clusterv1.MachineUpToDateReason, ""),
		cond(clusterv1.DeletingCondition, false, clusterv1.NotDeletingReason, ""),
	)
	if err := s.r.client.Status().Patch(ctx, m, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("writing the status of Machine %s: %w", name, err)
	}
	s.r.event(ctx, c, eventNormal, EventMachineCreated, "Created Machine %s for %s (%s)", name, g.description, why)
	return nil
}

// ensureInfraMachine creates the OpenStackMachine of m, cloned from the
// group's template, as CAPI does when it creates a Machine.
func (s *step) ensureInfraMachine(ctx context.Context, g *machineGroup, m *clusterv1.Machine) error {
	if _, ok := s.obs.infraMachines[m.Name]; ok {
		return nil
	}
	c := s.obs.cluster
	labels := map[string]string{clusterv1.ClusterNameLabel: c.Name}
	for _, k := range []string{clusterv1.MachineControlPlaneLabel, clusterv1.MachineControlPlaneNameLabel, clusterv1.MachineDeploymentNameLabel, clusterv1.ClusterTopologyMachineDeploymentNameLabel} {
		if v, ok := m.Labels[k]; ok {
			labels[k] = v
		}
	}
	u := &infrav1.OpenStackMachine{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: m.Namespace, Name: m.Name, Labels: labels,
			Annotations: map[string]string{
				annotationClonedFromName:      g.template,
				annotationClonedFromGroupKind: kindOpenStackMachineTemplate + "." + infraGroup,
			},
			OwnerReferences: []metav1.OwnerReference{ownerRef(m, "Machine", true)},
		},
		Spec: openStackMachineSpec(g.spec, s.desired.identity),
	}
	if err := s.r.client.Create(ctx, u); err != nil && !apierrors.IsAlreadyExists(err) {
		return fmt.Errorf("creating OpenStackMachine %s: %w", m.Name, err)
	}
	s.obs.infraMachines[m.Name] = u
	return nil
}

// finishProvisioning ends the provisioning of a Machine created by an
// earlier step: it becomes a Running node, or fails when failures are
// injected.
func (s *step) finishProvisioning(ctx context.Context, g *machineGroup, m *clusterv1.Machine) error {
	if err := s.ensureInfraMachine(ctx, g, m); err != nil {
		return err
	}
	s.acted = true
	if s.fault != nil {
		return s.failMachine(ctx, g, m)
	}
	c := s.obs.cluster
	id := strings.TrimPrefix(m.Spec.ProviderID, "openstack:///")
	if id == "" {
		id = string(uuid.NewUUID())
		orig := m.DeepCopy()
		m.Spec.ProviderID = "openstack:///" + id
		if err := s.r.client.Patch(ctx, m, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("setting the provider ID of Machine %s: %w", m.Name, err)
		}
	}
	ip := m.Annotations[annotationInternalIP]
	if ip == "" {
		ip = s.nextIP()
	}
	om := s.obs.infraMachines[m.Name]
	if err := s.patchInfraMachine(ctx, om, ptr.To(m.Spec.ProviderID), infrav1.OpenStackMachineStatus{
		Ready:          true,
		InstanceID:     ptr.To(id),
		InstanceState:  ptr.To(infrav1.InstanceStateActive),
		Addresses:      []corev1.NodeAddress{{Type: corev1.NodeInternalIP, Address: ip}},
		Initialization: &infrav1.MachineInitialization{Provisioned: true},
		Conditions: clusterv1beta1.Conditions{
			v1beta1Condition("Ready", true, "", "", ""),
			v1beta1Condition("InstanceReady", true, "", "", ""),
		},
	}); err != nil {
		return err
	}
	orig := m.DeepCopy()
	m.Status.Phase = string(clusterv1.MachinePhaseRunning)
	m.Status.Addresses = clusterv1.MachineAddresses{{Type: clusterv1.MachineInternalIP, Address: ip}}
	m.Status.NodeRef = clusterv1.MachineNodeReference{Name: m.Name}
	m.Status.Initialization.InfrastructureProvisioned = ptr.To(true)
	m.Status.Initialization.BootstrapDataSecretCreated = ptr.To(true)
	m.Status.LastUpdated = metav1.Now()
	setConditions(&m.Status.Conditions, m.Generation,
		cond(clusterv1.MachineBootstrapConfigReadyCondition, true, clusterv1.MachineBootstrapDataSecretProvidedReason, ""),
		cond(clusterv1.MachineInfrastructureReadyCondition, true, clusterv1.MachineInfrastructureReadyReason, ""),
		cond(clusterv1.MachineNodeReadyCondition, true, clusterv1.MachineNodeReadyReason, ""),
		cond(clusterv1.MachineNodeHealthyCondition, true, clusterv1.MachineNodeHealthyReason, ""),
		cond(clusterv1.MachineReadyCondition, true, clusterv1.MachineReadyReason, ""),
		cond(clusterv1.MachineAvailableCondition, true, clusterv1.MachineAvailableReason, ""),
	)
	if err := s.r.client.Status().Patch(ctx, m, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("writing the status of Machine %s: %w", m.Name, err)
	}
	s.expect[m.Name] = machineExpectation{phase: m.Status.Phase}
	s.r.event(ctx, c, eventNormal, EventMachineProvisioned, "Machine %s of %s is running as node %s at %s", m.Name, g.description, m.Name, ip)
	return nil
}

// failMachine is CAPO failing to create a server: the OpenStackMachine
// carries the failure, the Machine's InfrastructureReady and Ready
// conditions the injected reason and message.
func (s *step) failMachine(ctx context.Context, g *machineGroup, m *clusterv1.Machine) error {
	c := s.obs.cluster
	f := s.fault
	om := s.obs.infraMachines[m.Name]
	if err := s.patchInfraMachine(ctx, om, nil, infrav1.OpenStackMachineStatus{
		InstanceState:  ptr.To(infrav1.InstanceStateError),
		FailureReason:  ptr.To(capoerrors.DeprecatedCAPIMachineStatusError("CreateError")),
		FailureMessage: ptr.To(f.message),
		Conditions: clusterv1beta1.Conditions{
			v1beta1Condition("Ready", false, ReasonInstanceCreateFailed, clusterv1beta1.ConditionSeverityError, f.message),
			v1beta1Condition("InstanceReady", false, ReasonInstanceCreateFailed, clusterv1beta1.ConditionSeverityError, f.message),
		},
	}); err != nil {
		return err
	}
	orig := m.DeepCopy()
	m.Status.Phase = string(clusterv1.MachinePhaseFailed)
	m.Status.Initialization.InfrastructureProvisioned = ptr.To(false)
	m.Status.LastUpdated = metav1.Now()
	m.Status.Deprecated = &clusterv1.MachineDeprecatedStatus{V1Beta1: &clusterv1.MachineV1Beta1DeprecatedStatus{
		FailureMessage: ptr.To(f.message),
	}}
	setConditions(&m.Status.Conditions, m.Generation,
		cond(clusterv1.MachineInfrastructureReadyCondition, false, f.reason, f.message),
		cond(clusterv1.MachineReadyCondition, false, f.reason, f.message),
		cond(clusterv1.MachineAvailableCondition, false, clusterv1.NotAvailableReason, "Machine failed: "+f.message),
		cond(clusterv1.MachineNodeHealthyCondition, false, clusterv1.MachineNodeDoesNotExistReason, "The server could not be created"),
	)
	if err := s.r.client.Status().Patch(ctx, m, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("writing the status of Machine %s: %w", m.Name, err)
	}
	s.expect[m.Name] = machineExpectation{phase: m.Status.Phase}
	s.r.event(ctx, c, eventWarning, EventMachineFailed, "Machine %s of %s failed: %s: %s", m.Name, g.description, f.reason, f.message)
	return nil
}

// patchInfraMachine sets the OpenStackMachine's providerID (when given) and
// replaces its status, as CAPO does once the server exists or has failed.
func (s *step) patchInfraMachine(ctx context.Context, om *infrav1.OpenStackMachine, providerID *string, status infrav1.OpenStackMachineStatus) error {
	if providerID != nil {
		orig := om.DeepCopy()
		om.Spec.ProviderID = providerID
		if err := s.r.client.Patch(ctx, om, client.MergeFrom(orig)); err != nil {
			return fmt.Errorf("updating OpenStackMachine %s: %w", om.GetName(), err)
		}
	}
	orig := om.DeepCopy()
	om.Status = status
	if err := s.r.client.Status().Patch(ctx, om, client.MergeFrom(orig)); err != nil {
		return fmt.Errorf("writing the status of OpenStackMachine %s: %w", om.GetName(), err)
	}
	return nil
}

// deleteMachine deletes a Machine and its OpenStackMachine. Neither carries
// a finalizer: the simulated server and node vanish at once.
func (s *step) deleteMachine(ctx context.Context, m *clusterv1.Machine, why string) error {
	if err := s.r.client.Delete(ctx, m); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting Machine %s: %w", m.Name, err)
	}
	om := &infrav1.OpenStackMachine{ObjectMeta: metav1.ObjectMeta{Namespace: m.Namespace, Name: m.Name}}
	if err := s.r.client.Delete(ctx, om); client.IgnoreNotFound(err) != nil {
		return fmt.Errorf("deleting OpenStackMachine %s: %w", m.Name, err)
	}
	s.acted = true
	s.expect[m.Name] = machineExpectation{gone: true}
	s.r.event(ctx, s.obs.cluster, eventNormal, EventMachineDeleted, "Deleted Machine %s (%s)", m.Name, why)
	return nil
}

// collectTemplates deletes the OpenStackMachineTemplates nothing uses any
// more (after a rollout), and OpenStackMachines left without their Machine.
func (s *step) collectTemplates(ctx context.Context, groups []*machineGroup) error {
	used := map[string]bool{}
	for _, g := range groups {
		used[g.template] = true
	}
	for _, m := range s.obs.machines {
		used[m.Annotations[annotationTemplate]] = true
	}
	for _, t := range s.obs.templates {
		if used[t.GetName()] {
			continue
		}
		if err := s.r.client.Delete(ctx, t); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting OpenStackMachineTemplate %s: %w", t.GetName(), err)
		}
	}
	machines := map[string]bool{}
	for _, m := range s.obs.machines {
		machines[m.Name] = true
	}
	for name, om := range s.obs.infraMachines {
		if machines[name] {
			continue
		}
		if err := s.r.client.Delete(ctx, om); client.IgnoreNotFound(err) != nil {
			return fmt.Errorf("deleting OpenStackMachine %s: %w", name, err)
		}
	}
	return nil
}

// fault is an injected Machine failure.
type fault struct{ reason, message string }

var reasonPattern = regexp.MustCompile(`^[A-Za-z]([A-Za-z0-9_,:]*[A-Za-z0-9_])?$`)

// parseFault reads the fail-machines annotation: "<Reason>" or
// "<Reason>: <message>".
func parseFault(v string) *fault {
	v = strings.TrimSpace(v)
	if v == "" {
		return nil
	}
	if reason, msg, ok := strings.Cut(v, ": "); ok && reasonPattern.MatchString(reason) {
		return &fault{reason: reason, message: strings.TrimSpace(msg)}
	}
	if reasonPattern.MatchString(v) {
		return &fault{reason: v, message: "Server creation failed: " + v + " (simulated)"}
	}
	return &fault{reason: ReasonInstanceCreateFailed, message: v}
}

func cond(typ string, ok bool, reason, message string) metav1.Condition {
	c := metav1.Condition{Type: typ, Status: metav1.ConditionFalse, Reason: reason, Message: message}
	if ok {
		c.Status = metav1.ConditionTrue
	}
	return c
}

// setConditions sets conditions, keeping each one's transition time while
// its status does not change.
func setConditions(list *[]metav1.Condition, generation int64, cs ...metav1.Condition) (changed bool) {
	for _, c := range cs {
		c.ObservedGeneration = generation
		if meta.SetStatusCondition(list, c) {
			changed = true
		}
	}
	return changed
}
