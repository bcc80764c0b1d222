package reconciler

import (
	"context"
	"encoding/json"
	"fmt"
	"sort"

	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// The inventory of a unit (a cluster folder or a ClusterClass folder) is kept
// in the management cluster, so that what keel applied can be pruned or torn
// down even after its folder left Git, and survives a keel restart.
const (
	inventoryPrefix         = "keel-inventory-"
	inventoryLabel          = "keel.openkeel.io/inventory"
	inventoryUnitAnnotation = "keel.openkeel.io/unit"
	inventoryRevAnnotation  = "keel.openkeel.io/applied-revision"
	inventoryKey            = "entries"
	// inventoryRepoLabel names the repository (gitstore.Store.ID) an
	// inventory belongs to.
	inventoryRepoLabel = "keel.openkeel.io/repository"
	// LabelClusterUUID on an inventory names the Magnum cluster it serves.
	inventoryClusterUUIDLabel = intent.LabelClusterUUID
)

// Entry identifies one applied object.
type Entry struct {
	Group     string `json:"group"`
	Version   string `json:"version"`
	Kind      string `json:"kind"`
	Namespace string `json:"namespace,omitempty"`
	Name      string `json:"name"`
}

func entryOf(o *unstructured.Unstructured) Entry {
	gvk := o.GroupVersionKind()
	return Entry{Group: gvk.Group, Version: gvk.Version, Kind: gvk.Kind, Namespace: o.GetNamespace(), Name: o.GetName()}
}

func (e Entry) key() string { return e.Group + "/" + e.Kind + "/" + e.Namespace + "/" + e.Name }

func (e Entry) object() *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: e.Group, Version: e.Version, Kind: e.Kind})
	u.SetNamespace(e.Namespace)
	u.SetName(e.Name)
	return u
}

// Inventory is what keel last applied for one unit.
type Inventory struct {
	Unit        string
	ClusterUUID string
	Revision    string
	Entries     []Entry
}

func inventoryName(unitID string) string { return inventoryPrefix + unitID }

func loadInventory(ctx context.Context, c client.Client, unitID string) (*Inventory, error) {
	var cm corev1.ConfigMap
	err := c.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: inventoryName(unitID)}, &cm)
	if apierrors.IsNotFound(err) {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	return inventoryFrom(&cm)
}

func inventoryFrom(cm *corev1.ConfigMap) (*Inventory, error) {
	inv := &Inventory{
		Unit:        cm.Annotations[inventoryUnitAnnotation],
		Revision:    cm.Annotations[inventoryRevAnnotation],
		ClusterUUID: cm.Labels[inventoryClusterUUIDLabel],
	}
	if err := json.Unmarshal([]byte(cm.Data[inventoryKey]), &inv.Entries); err != nil {
		return nil, fmt.Errorf("inventory %s: %w", cm.Name, err)
	}
	return inv, nil
}

// listInventories lists every inventory; an error means the list is not
// complete, and then nothing may be pruned.
func listInventories(ctx context.Context, c client.Client, repoID string) (map[string]*Inventory, error) {
	var list corev1.ConfigMapList
	if err := c.List(ctx, &list, client.InNamespace(kube.Namespace), client.HasLabels{inventoryLabel}, client.MatchingLabels{inventoryRepoLabel: repoID}); err != nil {
		return nil, err
	}
	out := map[string]*Inventory{}
	for i := range list.Items {
		inv, err := inventoryFrom(&list.Items[i])
		if err != nil {
			return nil, err
		}
		out[list.Items[i].Labels[inventoryLabel]] = inv
	}
	return out, nil
}

func saveInventory(ctx context.Context, c client.Client, repoID, unitID string, inv *Inventory) error {
	sort.Slice(inv.Entries, func(i, j int) bool { return inv.Entries[i].key() < inv.Entries[j].key() })
	data, err := json.Marshal(inv.Entries)
	if err != nil {
		return err
	}
	labels := map[string]string{inventoryLabel: unitID, inventoryRepoLabel: repoID}
	if inv.ClusterUUID != "" {
		labels[inventoryClusterUUIDLabel] = inv.ClusterUUID
	}
	cm := corev1ac.ConfigMap(inventoryName(unitID), kube.Namespace).
		WithLabels(labels).
		WithAnnotations(map[string]string{inventoryUnitAnnotation: inv.Unit, inventoryRevAnnotation: inv.Revision}).
		WithData(map[string]string{inventoryKey: string(data)})
	return c.Apply(ctx, cm, client.FieldOwner(kube.FieldManager), client.ForceOwnership)
}

func deleteInventory(ctx context.Context, c client.Client, unitID string) error {
	cm := &corev1.ConfigMap{ObjectMeta: metav1.ObjectMeta{Name: inventoryName(unitID), Namespace: kube.Namespace}}
	if err := c.Delete(ctx, cm); err != nil && !apierrors.IsNotFound(err) {
		return err
	}
	return nil
}
