package reconciler

import (
	"fmt"

	"github.com/fluxcd/pkg/ssa"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/intent"
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
