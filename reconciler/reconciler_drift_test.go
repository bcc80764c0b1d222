package reconciler

import (
	"context"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// An object edited in the management cluster is restored from Git by the
// resync pass.
func TestResyncCorrectsDrift(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	st := f.cluster("drift", 2)
	f.write(st)
	f.rec.Sync(ctx)

	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	var cl clusterv1.Cluster
	if err := env.Client.Get(ctx, key, &cl); err != nil {
		t.Fatal(err)
	}
	five := int32(5)
	cl.Spec.Topology.Workers.MachineDeployments[0].Replicas = &five
	three := int32(3)
	cl.Spec.Topology.ControlPlane.Replicas = &three
	if err := env.Client.Update(ctx, &cl, client.FieldOwner("someone-else")); err != nil {
		t.Fatal(err)
	}

	f.rec.SyncAll(ctx)
	if err := env.Client.Get(ctx, key, &cl); err != nil {
		t.Fatal(err)
	}
	if got, cp := *cl.Spec.Topology.Workers.MachineDeployments[0].Replicas, *cl.Spec.Topology.ControlPlane.Replicas; got != 2 || cp != 1 {
		t.Errorf("after resync: worker replicas %d, control plane %d; want 2 and 1", got, cp)
	}
}
