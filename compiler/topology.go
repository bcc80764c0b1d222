package compiler

import (
	"fmt"
	"maps"
	"math"
	"reflect"
	"slices"
	"sort"
	"strconv"
	"strings"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/clusterclass"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/schemas"
)

// Labels and annotations of the CAPI Cluster and its MachineDeployments.
const (
	// LabelCNI records the Calico release on the Cluster, as the reference
	// does (cni=calico-<tag>).
	LabelCNI = "cni"

	// Cluster autoscaler (clusterapi provider) annotations: node group
	// bounds, and the capacity of a node of the group so that it can scale
	// from zero (quantities parsed with resource.ParseQuantity).
	AnnotationAutoscalerMinSize     = clusterv1.AutoscalerMinSizeAnnotation
	AnnotationAutoscalerMaxSize     = clusterv1.AutoscalerMaxSizeAnnotation
	AnnotationCapacityCPU           = "capacity.cluster-autoscaler.kubernetes.io/cpu"
	AnnotationCapacityMemory        = "capacity.cluster-autoscaler.kubernetes.io/memory"
	AnnotationCapacityEphemeralDisk = "capacity.cluster-autoscaler.kubernetes.io/ephemeral-disk"
	AnnotationCapacityLabels        = "capacity.cluster-autoscaler.kubernetes.io/labels"
	AnnotationCapacityTaints        = "capacity.cluster-autoscaler.kubernetes.io/taints"
)

// compilation carries what every part of one cluster's compilation reads.
type compilation struct {
	in     *Input
	labels map[string]string // the cluster's effective labels
	cat    *schemas.Catalogue
	vars   map[string]any // cluster-level variable values
}

// clusterObject builds the topology-managed CAPI Cluster of a Magnum
// cluster, but for its variables and the machine deployments' overrides,
// which it returns apart (see clusterContent).
func clusterObject(in Input) (*clusterv1.Cluster, topologyVariables, error) {
	c := &in.Cluster
	cat := in.catalogue()
	cp := &compilation{in: &in, labels: in.labels(), cat: cat}
	master, workers, err := splitNodeGroups(in.NodeGroups)
	if err != nil {
		return nil, topologyVariables{}, err
	}
	version := cp.labels[schemas.LabelKubeTag]
	if version == "" {
		// Unreachable while the catalogue has a kube_tag default (the
		// API also writes it into every new cluster's labels).
		return nil, topologyVariables{}, fmt.Errorf("cluster %s has no kube_tag label", c.UUID)
	}
	if !strings.HasPrefix(version, "v") {
		version = "v" + version
	}
	if cp.vars, err = cp.clusterVariables(master); err != nil {
		return nil, topologyVariables{}, err
	}
	healing, err := cp.bool(cp.labels, schemas.LabelAutoHealingEnabled)
	if err != nil {
		return nil, topologyVariables{}, err
	}
	labels := map[string]string{LabelClusterUUID: c.UUID}
	if cp.networkDriver() == "calico" {
		labels[LabelCNI] = "calico-" + cp.labels[schemas.LabelCalicoTag]
	}
	cluster := &clusterv1.Cluster{
		TypeMeta:   metav1.TypeMeta{APIVersion: clusterv1.GroupVersion.String(), Kind: "Cluster"},
		ObjectMeta: metav1.ObjectMeta{Name: c.StackID, Namespace: kube.Namespace, Labels: labels, Annotations: adoptedAnnotations(c)},
		Spec: clusterv1.ClusterSpec{
			ClusterNetwork: clusterv1.ClusterNetwork{
				Pods:          clusterv1.NetworkRanges{CIDRBlocks: []string{cp.podCIDR()}},
				Services:      clusterv1.NetworkRanges{CIDRBlocks: []string{cp.labels[schemas.LabelServiceClusterIPRange]}},
				ServiceDomain: cp.labels[schemas.LabelDNSClusterDomain],
				// apiserver_port; CAPO and kubeadm take it from the
				// apiServerPort variable (clusterclass/feature_api_server_port.go).
				APIServerPort: int32(intent.Deref(in.Template.APIServerPort)),
			},
			Topology: clusterv1.Topology{
				ClassRef: clusterv1.ClusterClassRef{Name: c.ClusterClass},
				Version:  version,
				ControlPlane: clusterv1.ControlPlaneTopology{
					// Control-plane resize: scaling KCP replicas adds or
					// removes machines without rolling the others.
					Replicas:    int32Ptr(master.NodeCount),
					HealthCheck: clusterv1.ControlPlaneTopologyHealthCheck{Enabled: &healing},
				},
			},
		},
	}
	tv := topologyVariables{cluster: sortedVariables(cp.vars)}
	for _, ng := range workers {
		md, overrides, err := cp.machineDeployment(ng, healing)
		if err != nil {
			return nil, topologyVariables{}, fmt.Errorf("nodegroup %s: %w", ng.Name, err)
		}
		cluster.Spec.Topology.Workers.MachineDeployments = append(cluster.Spec.Topology.Workers.MachineDeployments, md)
		tv.overrides = append(tv.overrides, overrides)
	}
	return cluster, tv, nil
}

// splitNodeGroups returns the master nodegroup and the workers, default
// worker first, then by name (stable whatever the reading order).
//
// A nodegroup being deleted is no longer in the intent (the API removes its
// document in the same commit that deletes it), so it is simply absent.
func splitNodeGroups(ngs []intent.NodeGroup) (master intent.NodeGroup, workers []intent.NodeGroup, err error) {
	found := false
	for _, ng := range ngs {
		if ng.Role == intent.RoleMaster {
			if found {
				return master, nil, fmt.Errorf("more than one master nodegroup (%s, %s)", master.Name, ng.Name)
			}
			master, found = ng, true
			continue
		}
		workers = append(workers, ng)
	}
	if !found {
		return master, nil, fmt.Errorf("no master nodegroup")
	}
	sort.SliceStable(workers, func(i, j int) bool {
		if workers[i].IsDefault != workers[j].IsDefault {
			return workers[i].IsDefault
		}
		return workers[i].Name < workers[j].Name
	})
	return master, workers, nil
}

func (cp *compilation) bool(labels map[string]string, name string) (bool, error) {
	return cp.cat.Bool(labels, name)
}

func (cp *compilation) int(labels map[string]string, name string) (int64, error) {
	if labels[name] == "" {
		return 0, nil
	}
	return cp.cat.Int(labels, name)
}

func (cp *compilation) networkDriver() string { return networkDriver(*cp.in) }

// networkDriver is the template's CNI; calico when unset, as in Magnum.
func networkDriver(in Input) string {
	if d := intent.Deref(in.Template.NetworkDriver); d != "" {
		return d
	}
	return "calico"
}

func (cp *compilation) podCIDR() string {
	if cp.networkDriver() == "cilium" {
		return cp.labels[schemas.LabelCiliumIpv4pool]
	}
	return cp.labels[schemas.LabelCalicoIpv4pool]
}

// clusterVariables are the cluster-level topology variables: every
// feature's values (clusterclass.Values), so that the committed Cluster
// shows the whole intent and does not depend on the class defaults.
func (cp *compilation) clusterVariables(master intent.NodeGroup) (map[string]any, error) {
	return clusterclass.Values(&clusterclass.Inputs{
		Documents: &cp.in.Documents, Master: master, Labels: cp.labels, Catalogue: cp.cat,
	})
}

// machineDeployment is the topology entry of one worker nodegroup.
func (cp *compilation) machineDeployment(ng intent.NodeGroup, healing bool) (clusterv1.MachineDeploymentTopology, []variable, error) {
	md := clusterv1.MachineDeploymentTopology{
		Class: clusterclass.WorkerClass,
		Name:  ng.Name,
		// CAPI copies node-role.kubernetes.io and node.cluster.x-k8s.io
		// labels from the machines to the Nodes.
		Metadata: clusterv1.ObjectMeta{Labels: map[string]string{
			LabelNodeRole + ng.Role: "",
			LabelNodeGroup:          ng.Name,
		}},
		FailureDomain: ng.Labels[schemas.LabelAvailabilityZone],
		HealthCheck:   clusterv1.MachineDeploymentTopologyHealthCheck{Enabled: &healing},
	}
	values, err := cp.nodeGroupVariables(ng)
	if err != nil {
		return md, nil, err
	}
	// Override only what differs from the cluster: the Cluster reads as
	// "this nodegroup is special in these ways".
	var overrides []variable
	for _, k := range slices.Sorted(maps.Keys(values)) {
		if v := newVariable(k, values[k]); !reflect.DeepEqual(v.value, cp.unstructuredVar(k)) {
			overrides = append(overrides, v)
		}
	}
	autoscaling, err := cp.bool(cp.labels, schemas.LabelAutoScalingEnabled)
	if err != nil {
		return md, nil, err
	}
	if !autoscaling {
		md.Replicas = int32Ptr(ng.NodeCount)
		return md, overrides, nil
	}
	// The autoscaler owns replicas: leaving them unset keeps the topology
	// controller from fighting it (CAPI rejects both set together).
	ann, err := cp.autoscalerAnnotations(ng, values)
	if err != nil {
		return md, nil, err
	}
	md.Metadata.Annotations = ann
	return md, overrides, nil
}

// nodeGroupVariables are the variable values of one worker nodegroup.
// Nodegroup labels fall back to the cluster's (the reference used the
// service defaults instead, gap 24).
func (cp *compilation) nodeGroupVariables(ng intent.NodeGroup) (map[string]any, error) {
	f := &cp.in.Facts
	// The nodegroup's labels over the cluster's, for the few read here
	// (merging all of them, per nodegroup, was a tenth of a compile).
	l := make(map[string]string, 4)
	for _, k := range []string{schemas.LabelBootVolumeSize, schemas.LabelBootVolumeType, schemas.LabelDifferentFailureDomain, schemas.LabelContainerInfraPrefix} {
		if v, ok := ng.Labels[k]; ok {
			l[k] = v
		} else if v, ok := cp.labels[k]; ok {
			l[k] = v
		}
	}
	bootSize, err := cp.int(l, schemas.LabelBootVolumeSize)
	if err != nil {
		return nil, err
	}
	diff, err := cp.bool(l, schemas.LabelDifferentFailureDomain)
	if err != nil {
		return nil, err
	}
	prefix := l[schemas.LabelContainerInfraPrefix]
	values := map[string]any{
		clusterclass.VarBootVolume:                     map[string]any{"size": bootSize, "type": l[schemas.LabelBootVolumeType]},
		clusterclass.VarContainerdConfig:               clusterclass.ContainerdConfig(clusterclass.SandboxImage(prefix), intent.Deref(cp.in.Template.InsecureRegistry) != ""),
		clusterclass.VarImageRepository:                prefix,
		clusterclass.VarIsServerGroupDiffFailureDomain: diff,
		// Always its own group (or none): a nodegroup must not inherit the
		// control plane's anti-affinity group.
		clusterclass.VarServerGroupID: f.ServerGroupIDs[ng.Name],
		clusterclass.VarNodeLabels:    nodeLabelsArg(ng.NodeLabels),
		clusterclass.VarNodeTaints:    nodeTaints(ng.NodeTaints),
	}
	if ng.FlavorID != nil {
		values[clusterclass.VarFlavor] = f.FlavorName(*ng.FlavorID)
	}
	if ng.ImageID != nil {
		uuid := f.ImageUUID(*ng.ImageID)
		values[clusterclass.VarImageUUID] = uuid
		values[clusterclass.VarHardwareDiskBus] = f.ImageDiskBuses[uuid]
	}
	if ng.DockerVolumeSize != nil {
		values[clusterclass.VarEnableDockerVolume] = *ng.DockerVolumeSize > 0
		values[clusterclass.VarDockerVolumeSize] = *ng.DockerVolumeSize
	}
	return values, nil
}

func nodeLabelsArg(labels map[string]string) string {
	var kv []string
	for _, k := range slices.Sorted(maps.Keys(labels)) {
		kv = append(kv, k+"="+labels[k])
	}
	return strings.Join(kv, ",")
}

func nodeTaints(taints []intent.Taint) []any {
	out := []any{}
	for _, t := range taints {
		m := map[string]any{"key": t.Key, "effect": t.Effect}
		if t.Value != "" {
			m["value"] = t.Value
		}
		out = append(out, m)
	}
	return out
}

// autoscalerAnnotations: the node group's bounds and, when the flavor is
// known, the capacity of one node so that the autoscaler can scale the group
// from zero. Units are what resource.ParseQuantity reads: memory in Mi
// (exact; the reference rounded up to decimal G), disk in Gi (the reference
// gave a bare number, i.e. bytes).
func (cp *compilation) autoscalerAnnotations(ng intent.NodeGroup, values map[string]any) (map[string]string, error) {
	maxSize := intent.Deref(ng.MaxNodeCount)
	if ng.MaxNodeCount == nil {
		l := ng.Labels
		if l[schemas.LabelMaxNodeCount] != "" {
			n, err := cp.cat.Int(l, schemas.LabelMaxNodeCount)
			if err != nil {
				return nil, err
			}
			maxSize = n
		} else {
			// No bound given: never below the current size (the autoscaler
			// would remove nodes to honour it), one node of headroom.
			maxSize = max(ng.NodeCount, ng.MinNodeCount+1)
		}
	}
	ann := map[string]string{
		AnnotationAutoscalerMinSize: strconv.FormatInt(ng.MinNodeCount, 10),
		AnnotationAutoscalerMaxSize: strconv.FormatInt(maxSize, 10),
	}
	labels := []string{LabelNodeRole + ng.Role + "=", LabelNodeGroup + "=" + ng.Name}
	for _, k := range slices.Sorted(maps.Keys(ng.NodeLabels)) {
		labels = append(labels, k+"="+ng.NodeLabels[k])
	}
	sort.Strings(labels)
	ann[AnnotationCapacityLabels] = strings.Join(labels, ",")
	if len(ng.NodeTaints) > 0 {
		var ts []string
		for _, t := range ng.NodeTaints {
			ts = append(ts, t.Key+"="+t.Value+":"+t.Effect)
		}
		ann[AnnotationCapacityTaints] = strings.Join(ts, ",")
	}
	flavorName, _ := values[clusterclass.VarFlavor].(string)
	if flavorName == "" {
		flavorName, _ = cp.vars[clusterclass.VarFlavor].(string)
	}
	if fl, ok := cp.in.Facts.Flavors[flavorName]; ok {
		ann[AnnotationCapacityCPU] = strconv.FormatInt(fl.VCPUs, 10)
		ann[AnnotationCapacityMemory] = strconv.FormatInt(fl.RAMMiB, 10) + "Mi"
		disk := fl.DiskGiB
		if bv, ok := values[clusterclass.VarBootVolume].(map[string]any); ok {
			if size, _ := bv["size"].(int64); size > 0 {
				disk = size
			}
		}
		if disk > 0 {
			ann[AnnotationCapacityEphemeralDisk] = strconv.FormatInt(disk, 10) + "Gi"
		}
	}
	return ann, nil
}

func sortedVariables(vars map[string]any) []variable {
	out := make([]variable, 0, len(vars))
	for _, k := range slices.Sorted(maps.Keys(vars)) {
		out = append(out, newVariable(k, vars[k]))
	}
	return out
}

// unstructuredVar is the cluster-level value of variable k as the Cluster
// carries it.
func (cp *compilation) unstructuredVar(k string) any {
	v, ok := cp.vars[k]
	if !ok {
		return nil
	}
	return unstructuredValue(v)
}

func int32Ptr(n int64) *int32 {
	if n > math.MaxInt32 {
		n = math.MaxInt32
	}
	v := int32(n)
	return &v
}
