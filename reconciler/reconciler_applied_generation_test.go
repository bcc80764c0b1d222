package reconciler

import (
	"context"
	"testing"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
)

// The sink learns the CAPI Cluster's generation as the API server has it
// right after each apply: a spec change (a resize) raises it, a re-apply of
// the same revision does not. The status compares it with the generation
// an observation was made of, so that counts observed before the apply do
// not complete the update.
func TestAppliedReportsTheClusterGeneration(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	st := f.cluster("generation", 1)
	f.write(st)
	f.rec.Sync(ctx)
	live := func() int64 {
		t.Helper()
		var cl clusterv1.Cluster
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}, &cl); err != nil {
			t.Fatal(err)
		}
		return cl.Generation
	}
	first := f.sink.gens[st.Cluster.UUID]
	if first == 0 || first != live() {
		t.Fatalf("generation after the create's apply: sink %d, API server %d", first, live())
	}

	st.NodeGroups[1].NodeCount = 3
	f.write(st)
	f.rec.Sync(ctx)
	second := f.sink.gens[st.Cluster.UUID]
	if second <= first || second != live() {
		t.Fatalf("generation after a resize: sink %d (before %d), API server %d", second, first, live())
	}
}
