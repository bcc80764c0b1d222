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
	cl.Spec.Topology.Version = "v1.34.0"
	if err := env.Client.Update(ctx, &cl, client.FieldOwner("someone-else")); err != nil {
		t.Fatal(err)
	}

	f.rec.SyncAll(ctx)
	if err := env.Client.Get(ctx, key, &cl); err != nil {
		t.Fatal(err)
	}
	if got := *cl.Spec.Topology.Workers.MachineDeployments[0].Replicas; got != 2 || cl.Spec.Topology.Version != "v1.33.4" {
		t.Errorf("after resync: replicas %d version %s, want 2 and v1.33.4", got, cl.Spec.Topology.Version)
	}
}
