package magnumimport

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// clusterFinder finds Magnum's clusters on a management cluster, read
// only: a Cluster named after the stack_id in magnum-system, labelled
// cluster-uuid=<uuid>, as magnum-cluster-api makes them.
type clusterFinder struct{ c client.Reader }

// NewFinder is the Finder of the management cluster c reads (only reads).
func NewFinder(c client.Reader) Finder { return &clusterFinder{c: c} }

func (f *clusterFinder) Find(ctx context.Context, stackID, uuid string) (*Found, error) {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(clusterv1.GroupVersion.WithKind("Cluster"))
	err := f.c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: stackID}, u)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading Cluster %s/%s: %w", kube.Namespace, stackID, err)
	}
	if u.GetLabels()[intent.LabelClusterUUID] != uuid {
		return nil, nil // another cluster's, or not Magnum's
	}
	return foundCluster(u)
}

// foundCluster reads what an adoption keeps of a Cluster: its topology,
// cluster network and replica counts.
func foundCluster(u *unstructured.Unstructured) (*Found, error) {
	topology, ok, _ := unstructured.NestedMap(u.Object, "spec", "topology")
	if !ok {
		return nil, NotAdoptable{fmt.Sprintf("its Cluster %s has no topology (it was not made from a ClusterClass)", u.GetName())}
	}
	f := &Found{Topology: topology, Workers: map[string]int64{}}
	f.ClusterNetwork, _, _ = unstructured.NestedMap(u.Object, "spec", "clusterNetwork")
	f.Class, _, _ = unstructured.NestedString(topology, "classRef", "name")
	f.Version, _, _ = unstructured.NestedString(topology, "version")
	f.ControlPlane, _, _ = unstructured.NestedInt64(topology, "controlPlane", "replicas")
	mds, _, _ := unstructured.NestedSlice(topology, "workers", "machineDeployments")
	for _, x := range mds {
		md, _ := x.(map[string]any)
		name, _, _ := unstructured.NestedString(md, "name")
		n, counted, _ := unstructured.NestedInt64(md, "replicas")
		if !counted {
			n = -1
		}
		f.Workers[name] = n
	}
	f.FieldManagers = topologyManagers(u.GetManagedFields())
	if f.Class == "" {
		return nil, NotAdoptable{fmt.Sprintf("its Cluster %s names no ClusterClass", u.GetName())}
	}
	return f, nil
}

// topologyManagers are the field managers of a Cluster's spec.topology:
// the driver that made it (Cluster API's controllers never write a
// topology), but keel itself.
func topologyManagers(entries []metav1.ManagedFieldsEntry) []intent.FieldManager {
	var out []intent.FieldManager
	for _, e := range entries {
		if e.Subresource != "" || e.FieldsV1 == nil || e.Manager == kube.FieldManager || strings.Contains(e.Manager, ",") {
			continue
		}
		var fields struct {
			Spec map[string]json.RawMessage `json:"f:spec"`
		}
		if json.Unmarshal(e.FieldsV1.GetRawBytes(), &fields) != nil {
			continue
		}
		if _, ok := fields.Spec["f:topology"]; ok {
			out = append(out, intent.FieldManager{Name: e.Manager, Operation: string(e.Operation)})
		}
	}
	return out
}
