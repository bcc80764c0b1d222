package simulator

import (
	"context"
	"fmt"
	"maps"

	"k8s.io/apimachinery/pkg/api/equality"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// maxNameLength keeps generated names usable as label values (CAPI copies
// MachineDeployment and KubeadmControlPlane names into Machine labels).
const maxNameLength = 63

// boundedName joins prefix and a suffix, cutting the prefix so that the
// result fits in a label value, as CAPI's name generator does.
func boundedName(prefix, sfx string) string {
	if room := maxNameLength - len(sfx) - 1; len(prefix) > room {
		prefix = prefix[:room]
	}
	return prefix + "-" + sfx
}

// ownerRef makes o owned by owner; the API server's garbage collector (when
// one runs) then cleans up behind a deleted owner, as it does under CAPI.
func ownerRef(owner client.Object, kind string, controller bool) metav1.OwnerReference {
	return metav1.OwnerReference{
		APIVersion: ownerAPIVersion(kind),
		Kind:       kind,
		Name:       owner.GetName(),
		UID:        owner.GetUID(),
		Controller: ptr.To(controller),
	}
}

func ownerAPIVersion(kind string) string {
	switch kind {
	case "KubeadmControlPlane":
		return controlplanev1.GroupVersion.String()
	case "Cluster", "MachineDeployment", "Machine":
		return clusterv1.GroupVersion.String()
	}
	return infrav1.SchemeGroupVersion.String()
}

// syncTopology plays CAPI's topology controller once the infrastructure is
// ready: it creates and updates the KubeadmControlPlane, the
// MachineDeployments and their OpenStackMachineTemplates so that they say
// what the topology asks for. It is not paced: the topology controller
// reacts at once, and the Machines are what takes time. MachineDeployments
// removed from the topology are torn down by the steps (they own Machines).
func (r *reconciler) syncTopology(ctx context.Context, obs *observed, d desiredState) (changed bool, err error) {
	if obs.infra == nil || !infraReady(obs.infra) {
		return false, nil
	}
	c := obs.cluster
	cpTemplate := templateName(c.Name, roleControlPlane, d.controlPlane.machine, d.identity)
	created, err := r.ensureTemplate(ctx, obs, cpTemplate, d.controlPlane.machine, d.identity)
	if err != nil {
		return false, err
	}
	changed = changed || created
	if obs.kcp == nil {
		kcp := newKubeadmControlPlane(c, d, cpTemplate)
		if err := r.client.Create(ctx, kcp); err != nil && !apierrors.IsAlreadyExists(err) {
			return false, fmt.Errorf("creating KubeadmControlPlane %s: %w", kcp.Name, err)
		}
		changed = true
	} else {
		updated, err := r.updateKubeadmControlPlane(ctx, obs.kcp, d, cpTemplate)
		if err != nil {
			return false, err
		}
		changed = changed || updated
	}

	// As CAPI's topology controller does, the MachineDeployments move to a
	// new Kubernetes version only once the whole control plane runs it.
	cpUpgraded := controlPlaneRuns(obs, d.version)
	for _, g := range d.workers {
		tmpl := templateName(c.Name, g.name, g.machine, d.identity)
		created, err := r.ensureTemplate(ctx, obs, tmpl, g.machine, d.identity)
		if err != nil {
			return false, err
		}
		changed = changed || created
		md := obs.mdFor(g.name)
		if md == nil {
			md = newMachineDeployment(c, g, d.version, tmpl)
			if err := r.client.Create(ctx, md); err != nil && !apierrors.IsAlreadyExists(err) {
				return false, fmt.Errorf("creating MachineDeployment %s: %w", md.Name, err)
			}
			changed = true
			continue
		}
		version := d.version
		if !cpUpgraded {
			version = md.Spec.Template.Spec.Version
		}
		updated, err := r.updateMachineDeployment(ctx, c, md, g, version, tmpl)
		if err != nil {
			return false, err
		}
		changed = changed || updated
	}
	return changed, nil
}

// controlPlaneRuns reports whether every control plane Machine runs version
// and there are as many as asked for.
func controlPlaneRuns(obs *observed, version string) bool {
	if obs.kcp == nil || obs.kcp.Spec.Version != version {
		return false
	}
	n := int32(0)
	for _, m := range obs.controlPlaneMachines() {
		if m.Spec.Version != version || m.Status.Phase != string(clusterv1.MachinePhaseRunning) {
			return false
		}
		n++
	}
	return n == ptr.Deref(obs.kcp.Spec.Replicas, 1)
}

func (r *reconciler) ensureTemplate(ctx context.Context, obs *observed, name string, m machineSpec, identity string) (bool, error) {
	for _, t := range obs.templates {
		if t.GetName() == name {
			return false, nil
		}
	}
	c := obs.cluster
	t := &infrav1.OpenStackMachineTemplate{
		ObjectMeta: metav1.ObjectMeta{
			Namespace: c.Namespace, Name: name,
			Labels:          map[string]string{clusterv1.ClusterNameLabel: c.Name, clusterv1.ClusterTopologyOwnedLabel: ""},
			OwnerReferences: []metav1.OwnerReference{ownerRef(c, "Cluster", false)},
		},
		Spec: infrav1.OpenStackMachineTemplateSpec{Template: infrav1.OpenStackMachineTemplateResource{Spec: openStackMachineSpec(m, identity)}},
	}
	if err := r.client.Create(ctx, t); err != nil && !apierrors.IsAlreadyExists(err) {
		return false, fmt.Errorf("creating OpenStackMachineTemplate %s: %w", name, err)
	}
	obs.templates = append(obs.templates, t)
	return true, nil
}

// mergeMaps returns base with extra's entries added (later ones win).
func mergeMaps(base map[string]string, extra ...map[string]string) map[string]string {
	out := maps.Clone(base)
	if out == nil {
		out = map[string]string{}
	}
	for _, e := range extra {
		maps.Copy(out, e)
	}
	return out
}

func newKubeadmControlPlane(c *clusterv1.Cluster, d desiredState, template string) *controlplanev1.KubeadmControlPlane {
	g := d.controlPlane
	return &controlplanev1.KubeadmControlPlane{
		ObjectMeta: metav1.ObjectMeta{
			Name:      boundedName(c.Name, stableSuffix(string(c.UID), roleControlPlane)),
			Namespace: c.Namespace,
			Labels: mergeMaps(g.labels, map[string]string{
				clusterv1.ClusterNameLabel:          c.Name,
				clusterv1.ClusterTopologyOwnedLabel: "",
			}),
			Annotations:     maps.Clone(g.annotations),
			OwnerReferences: []metav1.OwnerReference{ownerRef(c, "Cluster", false)},
		},
		Spec: controlplanev1.KubeadmControlPlaneSpec{
			Replicas: ptr.To(*g.replicas),
			Version:  d.version,
			MachineTemplate: controlplanev1.KubeadmControlPlaneMachineTemplate{
				ObjectMeta: clusterv1.ObjectMeta{Labels: maps.Clone(g.labels), Annotations: maps.Clone(g.annotations)},
				Spec: controlplanev1.KubeadmControlPlaneMachineTemplateSpec{
					InfrastructureRef: infraRef(kindOpenStackMachineTemplate, template),
				},
			},
		},
	}
}

// updateKubeadmControlPlane brings the KubeadmControlPlane spec in line with
// the topology; a changed version or template bumps its generation and rolls
// its Machines out.
func (r *reconciler) updateKubeadmControlPlane(ctx context.Context, kcp *controlplanev1.KubeadmControlPlane, d desiredState, template string) (bool, error) {
	orig := kcp.DeepCopy()
	g := d.controlPlane
	kcp.Spec.Replicas = ptr.To(*g.replicas)
	kcp.Spec.Version = d.version
	kcp.Spec.MachineTemplate.Spec.InfrastructureRef = infraRef(kindOpenStackMachineTemplate, template)
	kcp.Labels = mergeMaps(kcp.Labels, g.labels)
	if equality.Semantic.DeepEqual(orig, kcp) {
		return false, nil
	}
	// A merge patch touches only what changed and needs no resourceVersion:
	// the simulator is the only writer of its KubeadmControlPlane's spec.
	if err := r.client.Patch(ctx, kcp, client.MergeFrom(orig)); err != nil {
		return false, fmt.Errorf("updating KubeadmControlPlane %s: %w", kcp.Name, err)
	}
	return true, nil
}

func machineDeploymentLabels(c *clusterv1.Cluster, g desiredGroup) map[string]string {
	return mergeMaps(g.labels, map[string]string{
		clusterv1.ClusterNameLabel:                          c.Name,
		clusterv1.ClusterTopologyOwnedLabel:                 "",
		clusterv1.ClusterTopologyMachineDeploymentNameLabel: g.name,
	})
}

func newMachineDeployment(c *clusterv1.Cluster, g desiredGroup, version, template string) *clusterv1.MachineDeployment {
	name := boundedName(c.Name+"-"+g.name, stableSuffix(string(c.UID), "md/"+g.name))
	replicas := g.minSize
	if g.replicas != nil {
		replicas = *g.replicas
	}
	selector := map[string]string{
		clusterv1.ClusterNameLabel:           c.Name,
		clusterv1.MachineDeploymentNameLabel: name,
	}
	return &clusterv1.MachineDeployment{
		ObjectMeta: metav1.ObjectMeta{
			Name:            name,
			Namespace:       c.Namespace,
			Labels:          machineDeploymentLabels(c, g),
			Annotations:     maps.Clone(g.annotations),
			OwnerReferences: []metav1.OwnerReference{ownerRef(c, "Cluster", false)},
		},
		Spec: clusterv1.MachineDeploymentSpec{
			ClusterName: c.Name,
			Replicas:    ptr.To(replicas),
			Selector:    metav1.LabelSelector{MatchLabels: selector},
			Template: clusterv1.MachineTemplateSpec{
				ObjectMeta: clusterv1.ObjectMeta{
					Labels:      mergeMaps(machineDeploymentLabels(c, g), selector),
					Annotations: maps.Clone(g.annotations),
				},
				Spec: clusterv1.MachineSpec{
					ClusterName: c.Name,
					Version:     version,
					// No KubeadmConfigTemplate is simulated: nothing boots.
					Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To(name + "-bootstrap")},
					InfrastructureRef: infraRef(kindOpenStackMachineTemplate, template),
				},
			},
		},
	}
}

// updateMachineDeployment brings a MachineDeployment spec in line with its
// topology entry. Replicas are left alone when the entry has none: the
// cluster autoscaler owns them then, and the simulator follows the
// MachineDeployment, as CAPI does.
func (r *reconciler) updateMachineDeployment(ctx context.Context, c *clusterv1.Cluster, md *clusterv1.MachineDeployment, g desiredGroup, version, template string) (bool, error) {
	orig := md.DeepCopy()
	if g.replicas != nil {
		md.Spec.Replicas = ptr.To(*g.replicas)
	}
	md.Spec.Template.Spec.Version = version
	md.Spec.Template.Spec.InfrastructureRef = infraRef(kindOpenStackMachineTemplate, template)
	md.Labels = mergeMaps(md.Labels, g.labels)
	md.Annotations = mergeMaps(md.Annotations, g.annotations)
	// The template metadata is the simulator's alone: it follows the
	// topology exactly.
	md.Spec.Template.Labels = mergeMaps(machineDeploymentLabels(c, g), md.Spec.Selector.MatchLabels)
	md.Spec.Template.Annotations = maps.Clone(g.annotations)
	if equality.Semantic.DeepEqual(orig, md) {
		return false, nil
	}
	if err := r.client.Patch(ctx, md, client.MergeFrom(orig)); err != nil {
		return false, fmt.Errorf("updating MachineDeployment %s: %w", md.Name, err)
	}
	return true, nil
}

// infraReady reports whether the OpenStackCluster says it is ready.
func infraReady(u *infrav1.OpenStackCluster) bool { return u.Status.Ready }
