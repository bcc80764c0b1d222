package reconciler

import (
	"context"
	"testing"

	corev1 "k8s.io/api/core/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// A committed cluster is server-side applied with the keel field manager,
// with its ClusterClass, and recorded in an inventory; the sink learns the
// folder revision that was applied.
func TestSyncAppliesCommittedCluster(t *testing.T) {
	f := newFixture(t)
	st := f.cluster("apply", 2)
	f.write(st)
	f.rec.Sync(context.Background())

	ctx := context.Background()
	var cl clusterv1.Cluster
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}, &cl); err != nil {
		t.Fatalf("the Cluster was not applied: %v", err)
	}
	if cl.Labels["cluster-uuid"] != st.Cluster.UUID || *cl.Spec.Topology.Workers.MachineDeployments[0].Replicas != 2 {
		t.Errorf("applied Cluster: labels %v, workers %+v", cl.Labels, cl.Spec.Topology.Workers)
	}
	managed := false
	for _, mf := range cl.ManagedFields {
		if mf.Manager == kube.FieldManager {
			managed = true
		}
	}
	if !managed {
		t.Errorf("no managed fields of %q on the Cluster: %+v", kube.FieldManager, cl.ManagedFields)
	}
	var cc clusterv1.ClusterClass
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: "magnum-v0.1.0"}, &cc); err != nil {
		t.Errorf("the ClusterClass was not applied: %v", err)
	}
	var inv corev1.ConfigMap
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: inventoryName(st.Cluster.StackID)}, &inv); err != nil {
		t.Fatalf("no inventory: %v", err)
	}
	sn, _ := f.store.SnapshotHead()
	tree, _ := sn.Hash(st.Dir)
	if got := f.sink.applied[st.Cluster.UUID]; got != tree.String() {
		t.Errorf("sink got revision %q, want the folder's tree %s", got, tree)
	}
}
