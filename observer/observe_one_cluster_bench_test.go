package observer

import (
	"context"
	"fmt"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// BenchmarkObserveOneCluster measures what the observer reads of one
// cluster's objects (fillChildren: its control plane, MachineDeployments,
// Machines, CAPO objects) when the management cluster holds the Machines
// of 10 or of 1,000 clusters (3 each), all in magnum-system:
//
//	go test -run '^$' -bench ObserveOneCluster -benchtime 2000x ./observer
func BenchmarkObserveOneCluster(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	o, err := New(env.Config, &latestSink{last: map[string]*status.Observation{}, ch: make(chan struct{}, 1)}, nil)
	if err != nil {
		b.Fatal(err)
	}
	go func() { _ = o.Run(ctx) }()
	made := 0
	for _, n := range []int{10, 1000} {
		b.Run(fmt.Sprintf("clusters=%d", n), func(b *testing.B) {
			for ; made < 3*n; made++ {
				createMachine(b, fmt.Sprintf("kube-fl%04d", made/3), fmt.Sprintf("kube-fl%04d-m%d", made/3, made%3))
			}
			waitMachines(b, o, made)
			b.ResetTimer()
			for range b.N {
				var evs []status.Event
				obs := &status.Observation{}
				if err := o.fillChildren(ctx, obs, "kube-fl0000", &evs); err != nil {
					b.Fatal(err)
				}
				if len(obs.HealthReason) != 4 { // 3 Machines and the API
					b.Fatalf("health reasons %v", obs.HealthReason)
				}
			}
		})
	}
}

func createMachine(b testing.TB, cluster, name string) {
	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace, Labels: map[string]string{labelClusterName: cluster}},
		Spec: clusterv1.MachineSpec{ClusterName: cluster,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: capoGroup, Kind: kindOpenStackMachine, Name: name}},
	}
	if err := env.Client.Create(context.Background(), m); err != nil {
		b.Fatal(err)
	}
}

// waitMachines waits until the observer's cache holds at least n Machines.
func waitMachines(b *testing.B, o *Observer, n int) {
	deadline := time.Now().Add(5 * time.Minute)
	for {
		var l clusterv1.MachineList
		if err := o.cache.List(context.Background(), &l, client.InNamespace(kube.Namespace)); err == nil && len(l.Items) >= n {
			return
		}
		if time.Now().After(deadline) {
			b.Fatalf("the cache never held %d Machines", n)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
