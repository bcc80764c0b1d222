package observer

import (
	"context"
	"testing"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/status"
)

// The observation carries the Cluster's generation and the generation
// Cluster API's topology controller last reconciled (a True
// TopologyReconciled condition's observedGeneration), or why it did not: the
// status waits for the topology to catch up with a spec change before it
// trusts the control plane's and workers' counts.
func TestTopologyGenerationIsObserved(t *testing.T) {
	ctx := context.Background()
	sink := startObserver(t)
	cl := newCluster(t, "kube-topo01", "uuid-topo01")
	waitFirst(t, sink, "uuid-topo01")

	setTopology := func(st metav1.ConditionStatus, reason, msg string, gen int64) {
		t.Helper()
		if err := env.Client.Get(ctx, client.ObjectKeyFromObject(cl), cl); err != nil {
			t.Fatal(err)
		}
		cl.Status.Conditions = []metav1.Condition{{Type: clusterv1.ClusterTopologyReconciledCondition, Status: st,
			Reason: reason, Message: msg, ObservedGeneration: gen, LastTransitionTime: metav1.Now()}}
		if err := env.Client.Status().Update(ctx, cl); err != nil {
			t.Fatal(err)
		}
	}
	setTopology(metav1.ConditionTrue, "ReconcileSucceeded", "", cl.Generation)
	o := waitObservation(t, sink, "uuid-topo01", "the topology's generation", func(o *status.Observation) bool { return o.TopologyGeneration > 0 })
	if o.Generation != cl.Generation || o.TopologyGeneration != cl.Generation || o.TopologyReason != "" {
		t.Errorf("observation generation %d, topology %d (%q); want both %d", o.Generation, o.TopologyGeneration, o.TopologyReason, cl.Generation)
	}

	// A spec change raises the generation; until the topology controller
	// reconciles it, the observation shows the gap.
	cl.Spec.Topology.Version = "v1.34.1"
	if err := env.Client.Update(ctx, cl); err != nil {
		t.Fatal(err)
	}
	o = waitObservation(t, sink, "uuid-topo01", "the new generation", func(o *status.Observation) bool { return o.Generation == cl.Generation })
	if o.TopologyGeneration >= o.Generation {
		t.Errorf("observation after a spec change: generation %d, topology %d; want the topology behind", o.Generation, o.TopologyGeneration)
	}
	setTopology(metav1.ConditionFalse, "ReconcileFailed", "error reconciling the Cluster topology", cl.Generation)
	o = waitObservation(t, sink, "uuid-topo01", "the topology's reason", func(o *status.Observation) bool { return o.TopologyReason != "" })
	if want := "TopologyReconciled: ReconcileFailed: error reconciling the Cluster topology"; o.TopologyReason != want || o.TopologyGeneration != 0 {
		t.Errorf("topology reason %q (generation %d), want %q and no reconciled generation", o.TopologyReason, o.TopologyGeneration, want)
	}
}
