package observer

import (
	"context"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// The observer's cache keeps objects without their managedFields, which
// no status reads and which would cost hundreds of megabytes at fleet
// size; the objects in the API server keep theirs.
func TestObserverCacheHoldsNoManagedFields(t *testing.T) {
	o, err := New(env.Config, &latestSink{last: map[string]*status.Observation{}, ch: make(chan struct{}, 1)}, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = o.Run(ctx) }()
	newCluster(t, "kube-mf01", "uuid-mf01")
	key := client.ObjectKey{Namespace: kube.Namespace, Name: "kube-mf01"}
	var live clusterv1.Cluster
	if err := env.Client.Get(ctx, key, &live); err != nil {
		t.Fatal(err)
	}
	if len(live.ManagedFields) == 0 {
		t.Fatal("the API server's Cluster has no managedFields: the test proves nothing")
	}
	deadline := time.Now().Add(10 * time.Second)
	for {
		var cached clusterv1.Cluster
		err := o.cache.Get(ctx, key, &cached)
		if err == nil {
			if n := len(cached.ManagedFields); n != 0 {
				t.Fatalf("the observer's cache holds %d managedFields entries of the Cluster, want none", n)
			}
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("the Cluster never reached the observer's cache: %v", err)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
