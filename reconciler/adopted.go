package reconciler

import (
	"context"
	"fmt"

	"github.com/fluxcd/pkg/ssa"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// adoptedFieldManagers are the field managers of the driver a cluster was
// adopted from, as its Cluster's annotation names them: the apply hands
// their fields, on every object of the cluster, over to keel (Flux's
// managedFields cleanup), so that a field keel stops rendering leaves the
// object rather than staying the driver's. Without it, the upgrade onto
// keel's ClusterClass would keep the driver's topology variables, which
// keel's class does not define, and Cluster API would refuse the Cluster.
func adoptedFieldManagers(objs []*unstructured.Unstructured) ([]ssa.FieldManager, error) {
	for _, o := range objs {
		if o.GroupVersionKind().Group != clusterv1.GroupVersion.Group || o.GetKind() != "Cluster" {
			continue
		}
		ms, err := intent.ParseFieldManagers(o.GetAnnotations()[intent.AnnotationAdoptedFieldManagers])
		if err != nil {
			return nil, fmt.Errorf("the Cluster %s: %w", o.GetName(), err)
		}
		out := make([]ssa.FieldManager, len(ms))
		for i, m := range ms {
			out[i] = ssa.FieldManager{Name: m.Name, ExactMatch: true, OperationType: metav1.ManagedFieldsOperationType(m.Operation)}
		}
		return out, nil
	}
	return nil, nil
}

// releaseDriverAddons deletes, once keel renders the addons of a cluster
// it adopted (after the upgrade onto keel's ClusterClass: on the driver's
// class keel renders none), the ClusterResourceSets the driver left
// selecting the cluster, with the ConfigMaps and Secrets they list: they
// would go on applying the driver's addons beside keel's. What keel
// renders itself (the same name) is kept. Deleting a ClusterResourceSet
// removes nothing from the workload cluster, where keel's own sets now
// apply.
func (r *Reconciler) releaseDriverAddons(ctx context.Context, objs []*unstructured.Unstructured, uuid string) error {
	mine := map[string]bool{}
	adopted, addons := false, false
	for _, o := range objs {
		mine[o.GetKind()+"/"+o.GetName()] = true
		adopted = adopted || (o.GetKind() == "Cluster" && o.GetAnnotations()[intent.AnnotationAdoptedFieldManagers] != "")
		addons = addons || o.GetKind() == "ClusterResourceSet"
	}
	if uuid == "" || !adopted || !addons {
		return nil
	}
	var sets unstructured.UnstructuredList
	sets.SetGroupVersionKind(addonsv1.GroupVersion.WithKind("ClusterResourceSetList"))
	if err := r.client.List(ctx, &sets, client.InNamespace(kube.Namespace)); err != nil {
		return err
	}
	for i := range sets.Items {
		s := &sets.Items[i]
		sel, _, _ := unstructured.NestedStringMap(s.Object, "spec", "clusterSelector", "matchLabels")
		if mine["ClusterResourceSet/"+s.GetName()] || sel[intent.LabelClusterUUID] != uuid {
			continue
		}
		if err := r.deleteDriverSet(ctx, s, mine); err != nil {
			return err
		}
	}
	return nil
}

func (r *Reconciler) deleteDriverSet(ctx context.Context, s *unstructured.Unstructured, mine map[string]bool) error {
	resources, _, _ := unstructured.NestedSlice(s.Object, "spec", "resources")
	for _, x := range resources {
		res, _ := x.(map[string]any)
		kind, _, _ := unstructured.NestedString(res, "kind")
		name, _, _ := unstructured.NestedString(res, "name")
		if (kind != "Secret" && kind != "ConfigMap") || mine[kind+"/"+name] {
			continue
		}
		o := &unstructured.Unstructured{}
		o.SetGroupVersionKind(corev1.SchemeGroupVersion.WithKind(kind))
		o.SetNamespace(kube.Namespace)
		o.SetName(name)
		if err := client.IgnoreNotFound(r.client.Delete(ctx, o)); err != nil {
			return err
		}
	}
	r.o.Log.Info("deleted the adopted cluster's driver ClusterResourceSet, which keel's addons replace", "set", s.GetName())
	return client.IgnoreNotFound(r.client.Delete(ctx, s))
}
