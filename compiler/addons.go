package compiler

import (
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"

	"github.com/openkeel/keel/internal/kube"
)

// The ClusterResourceSets that deliver the addons to the workload cluster,
// named as the reference names them so that clusters it created are adopted
// as they are:
//
//   - <uuid>: the CNI (Calico or Cilium) and k8s-keystone-auth;
//   - <stack_id>-cloud-provider: the OpenStack cloud controller manager and
//     the Cinder and Manila CSI drivers.
//
// Both select the cluster by its cluster-uuid label and use strategy
// Reconcile (the reference's <uuid> set was ApplyOnce, so addon changes on
// upgrade never reached the cluster, gap 14). Each reads the Secret of the
// same name; the compiler does not render those Secrets yet (their content,
// the rendered charts and the cloud config, comes with the addons work):
// until they exist, Cluster API reports the set's ResourcesApplied condition
// false and applies nothing.
func addonDocuments(in Input) ([]Document, error) {
	c := &in.Cluster
	var docs []Document
	for _, crs := range []struct{ file, name string }{
		{"clusterresourceset-addons.yaml", c.UUID},
		{"clusterresourceset-cloud-provider.yaml", c.StackID + "-cloud-provider"},
	} {
		obj := &addonsv1.ClusterResourceSet{
			TypeMeta:   metav1.TypeMeta{APIVersion: addonsv1.GroupVersion.String(), Kind: "ClusterResourceSet"},
			ObjectMeta: metav1.ObjectMeta{Name: crs.name, Namespace: kube.Namespace, Labels: map[string]string{LabelClusterUUID: c.UUID}},
			Spec: addonsv1.ClusterResourceSetSpec{
				ClusterSelector: metav1.LabelSelector{MatchLabels: map[string]string{LabelClusterUUID: c.UUID}},
				Resources:       []addonsv1.ResourceRef{{Name: crs.name, Kind: "Secret"}},
				Strategy:        string(addonsv1.ClusterResourceSetStrategyReconcile),
			},
		}
		data, err := MarshalObject(obj)
		if err != nil {
			return nil, err
		}
		docs = append(docs, Document{Path: crs.file, Data: data})
	}
	return docs, nil
}
