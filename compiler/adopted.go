package compiler

import (
	"fmt"
	"strings"

	"k8s.io/apimachinery/pkg/runtime"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/yamlenc"
	"github.com/openkeel/keel/schemas"
)

// adoptedDocuments renders a cluster keel adopted from another driver and
// has not upgraded yet (intent.Adopted): the Cluster with the topology it
// was found with, so that the apply changes no Machine, and the CA Secrets
// with the CAs the driver copied from Magnum (the same bytes). Nothing else
// is rendered: the driver's cloud-config Secret and ClusterResourceSets
// keep serving the cluster until the upgrade onto keel's ClusterClass
// renders keel's own.
func adoptedDocuments(in Input) ([]Document, error) {
	content, err := adoptedCluster(in)
	if err != nil {
		return nil, err
	}
	data, err := yamlenc.MarshalOrFallback(content)
	if err != nil {
		return nil, err
	}
	docs := []Document{NewDocument("cluster.yaml", data)}
	if in.Secrets != nil {
		cas, err := caSecretDocuments(in)
		if err != nil {
			return nil, err
		}
		docs = append(docs, cas...)
	}
	return withKustomization(docs), nil
}

// adoptedCluster is the adopted Cluster: the found topology and cluster
// network, with what keel owns (the master count, each nodegroup's count,
// the Kubernetes version) set from the intent.
func adoptedCluster(in Input) (map[string]any, error) {
	c := &in.Cluster
	a := c.Adopted
	// A copy: rendering never changes the intent it reads (the intent is
	// JSON-shaped, as runtime.DeepCopyJSON wants it).
	topology := runtime.DeepCopyJSON(a.Topology)
	master, workers, err := splitNodeGroups(in.NodeGroups)
	if err != nil {
		return nil, err
	}
	cp, _ := topology["controlPlane"].(map[string]any)
	if cp == nil {
		cp = map[string]any{}
		topology["controlPlane"] = cp
	}
	cp["replicas"] = master.NodeCount
	// Magnum's kube_tag is the intent, as its counts are: equal to the
	// running version unless the adoption was asked to change it
	// (--adopt-changes), and an upgrade's from then on.
	if tag := c.Labels[schemas.LabelKubeTag]; tag != "" {
		topology["version"] = "v" + strings.TrimPrefix(tag, "v")
	}
	if err := adoptedWorkers(c, topology, workers); err != nil {
		return nil, err
	}
	spec := map[string]any{"topology": topology}
	if len(a.ClusterNetwork) > 0 {
		spec["clusterNetwork"] = runtime.DeepCopyJSON(a.ClusterNetwork)
	}
	meta := map[string]any{
		"name": c.StackID, "namespace": kube.Namespace,
		"labels": map[string]any{LabelClusterUUID: c.UUID},
	}
	if ann := adoptedAnnotations(c); ann != nil {
		meta["annotations"] = map[string]any{intent.AnnotationAdoptedFieldManagers: ann[intent.AnnotationAdoptedFieldManagers]}
	}
	return map[string]any{
		"apiVersion": clusterv1.GroupVersion.String(),
		"kind":       "Cluster",
		"metadata":   meta,
		"spec":       spec,
	}, nil
}

// adoptedAnnotations are the annotations of an adopted cluster's Cluster,
// on the driver's class and after: the driver's field managers, whose
// fields the reconciler hands over to keel (nil when none is known).
func adoptedAnnotations(c *intent.Cluster) map[string]string {
	if c.Adopted == nil || len(c.Adopted.FieldManagers) == 0 {
		return nil
	}
	return map[string]string{intent.AnnotationAdoptedFieldManagers: intent.FormatFieldManagers(c.Adopted.FieldManagers)}
}

// adoptedWorkers keeps the found MachineDeployments of the nodegroups the
// intent still has (a nodegroup deleted through keel is left out, so
// Cluster API deletes its machines) with their counts. A nodegroup the
// found topology lacks cannot be rendered on the driver's class, whose
// variables keel does not know: the cluster must be upgraded first.
func adoptedWorkers(c *intent.Cluster, topology map[string]any, workers []intent.NodeGroup) error {
	w, _ := topology["workers"].(map[string]any)
	var found []any
	if w != nil {
		found, _ = w["machineDeployments"].([]any)
	}
	byName := map[string]map[string]any{}
	for _, x := range found {
		if md, ok := x.(map[string]any); ok {
			name, _ := md["name"].(string)
			byName[name] = md
		}
	}
	mds := make([]any, 0, len(workers))
	for _, ng := range workers {
		md, ok := byName[ng.Name]
		if !ok {
			return fmt.Errorf("cluster %s: nodegroup %s is not among the MachineDeployments of the adopted ClusterClass %s "+
				"(upgrade the cluster onto keel's ClusterClass before adding nodegroups)", c.UUID, ng.Name, c.Adopted.Class)
		}
		if _, counted := md["replicas"]; counted || !hasAutoscalerBounds(md) {
			md["replicas"] = ng.NodeCount
		}
		mds = append(mds, md)
	}
	if len(mds) == 0 {
		delete(topology, "workers")
		return nil
	}
	if w == nil {
		w = map[string]any{}
		topology["workers"] = w
	}
	w["machineDeployments"] = mds
	return nil
}

// hasAutoscalerBounds: the MachineDeployment carries the cluster
// autoscaler's bounds, and its count is the autoscaler's (Cluster API
// leaves replicas unset for it).
func hasAutoscalerBounds(md map[string]any) bool {
	meta, _ := md["metadata"].(map[string]any)
	ann, _ := meta["annotations"].(map[string]any)
	_, lo := ann[clusterv1.AutoscalerMinSizeAnnotation]
	_, hi := ann[clusterv1.AutoscalerMaxSizeAnnotation]
	return lo && hi
}
