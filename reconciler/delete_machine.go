package reconciler

import (
	"context"
	"fmt"
	"strings"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
)

// DeleteMachineAnnotation makes Cluster API remove a Machine first when its
// MachineDeployment scales down.
const DeleteMachineAnnotation = "cluster.x-k8s.io/delete-machine"

// markMachinesForDeletion annotates the Machines a resize named in
// nodes_to_remove (by OpenStack server UUID, Machine name or Node name),
// before the smaller replica count is applied, so that Cluster API removes
// exactly those. Machines keel does not render are only annotated, never
// otherwise changed.
func (r *Reconciler) markMachinesForDeletion(ctx context.Context, sn *gitstore.Snapshot, unit, stackID string) error {
	st, err := intent.ReadCluster(sn, unit)
	if err != nil {
		return err
	}
	want := map[string]bool{}
	for _, ng := range st.NodeGroups {
		for _, n := range ng.NodesToRemove {
			want[strings.ToLower(strings.TrimSpace(n))] = true
		}
	}
	if len(want) == 0 {
		return nil
	}
	var machines clusterv1.MachineList
	if err := r.client.List(ctx, &machines, client.InNamespace(kube.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: stackID}); err != nil {
		return fmt.Errorf("listing the machines of %s: %w", stackID, err)
	}
	for i := range machines.Items {
		m := &machines.Items[i]
		server := m.Spec.ProviderID[strings.LastIndex(m.Spec.ProviderID, "/")+1:]
		if !want[strings.ToLower(server)] && !want[strings.ToLower(m.Name)] && !want[strings.ToLower(m.Status.NodeRef.Name)] {
			continue
		}
		if _, done := m.Annotations[DeleteMachineAnnotation]; done {
			continue
		}
		patch := client.RawPatch("application/merge-patch+json", []byte(`{"metadata":{"annotations":{"`+DeleteMachineAnnotation+`":"yes"}}}`))
		if err := r.client.Patch(ctx, m, patch, client.FieldOwner(kube.FieldManager)); err != nil {
			return fmt.Errorf("marking machine %s for deletion: %w", m.Name, err)
		}
	}
	return nil
}
