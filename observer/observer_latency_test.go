package observer

import (
	"context"
	"fmt"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/testenv"
	"github.com/openkeel/keel/status"
)

var env *testenv.Env

func TestMain(m *testing.M) { testenv.Main(m, &env) }

// latestSink keeps the last observation per cluster and signals each one.
type latestSink struct {
	mu   sync.Mutex
	last map[string]*status.Observation
	ch   chan struct{}
}

func (s *latestSink) SetObservation(_ context.Context, uuid string, o *status.Observation) {
	s.mu.Lock()
	s.last[uuid] = o
	s.mu.Unlock()
	select {
	case s.ch <- struct{}{}:
	default:
	}
}

func (s *latestSink) ClusterUUIDByStackID(context.Context, string) (string, error) { return "", nil }

func (s *latestSink) get(uuid string) *status.Observation {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.last[uuid]
}

func newCluster(t testing.TB, name, uuid string) *clusterv1.Cluster {
	t.Helper()
	cl := &clusterv1.Cluster{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: kube.Namespace, Labels: map[string]string{labelClusterUUID: uuid}},
		Spec: clusterv1.ClusterSpec{Topology: clusterv1.Topology{
			ClassRef: clusterv1.ClusterClassRef{Name: "magnum-v0.1.0"}, Version: "v1.33.4",
		}},
	}
	if err := env.Client.Create(context.Background(), cl); err != nil {
		t.Fatal(err)
	}
	return cl
}

func setAvailable(t testing.TB, cl *clusterv1.Cluster, available bool) {
	t.Helper()
	s := metav1.ConditionFalse
	if available {
		s = metav1.ConditionTrue
	}
	cl.Status.Conditions = []metav1.Condition{{Type: clusterv1.ClusterAvailableCondition, Status: s, Reason: "Test", LastTransitionTime: metav1.Now()}}
	if err := env.Client.Status().Update(context.Background(), cl); err != nil {
		t.Fatal(err)
	}
}

func startObserver(t testing.TB) *latestSink {
	t.Helper()
	sink := &latestSink{last: map[string]*status.Observation{}, ch: make(chan struct{}, 1)}
	o, err := New(env.Config, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = o.Run(ctx) }()
	return sink
}

// A change of a CAPI Cluster's conditions reaches the read model's sink
// within a second (watch-based, no polling).
func TestStatusChangeReachesSinkWithinASecond(t *testing.T) {
	sink := startObserver(t)
	cl := newCluster(t, "kube-obs01", "uuid-obs01")
	waitFirst(t, sink, "uuid-obs01")
	for _, want := range []bool{true, false, true} {
		setAvailable(t, cl, want)
		start := time.Now()
		for {
			if o := sink.get("uuid-obs01"); o != nil && o.Available == want {
				break
			}
			if time.Since(start) > time.Second {
				t.Fatalf("Available=%v not observed within 1 s", want)
			}
			time.Sleep(5 * time.Millisecond)
		}
	}
}

var benchRuns int

// BenchmarkCAPIChangeToObservation measures the latency from a CAPI Cluster
// status change in the management cluster to the observation reaching the
// read model's sink.
func BenchmarkCAPIChangeToObservation(b *testing.B) {
	sink := startObserver(b)
	benchRuns++ // the benchmark function runs once per b.N tried
	uuid := fmt.Sprintf("uuid-bench-%d", benchRuns)
	cl := newCluster(b, fmt.Sprintf("kube-bch%02d", benchRuns), uuid)
	waitFirst(b, sink, uuid)
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		want := i%2 == 0
		setAvailable(b, cl, want)
		for {
			if o := sink.get(uuid); o != nil && o.Available == want {
				break
			}
			time.Sleep(100 * time.Microsecond)
		}
	}
}

// waitFirst waits for the observer's caches to sync and see the cluster, so
// that latencies are measured on a running watch.
func waitFirst(t testing.TB, sink *latestSink, uuid string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for sink.get(uuid) == nil {
		if time.Now().After(deadline) {
			t.Fatal("the observer never saw the cluster")
		}
		time.Sleep(10 * time.Millisecond)
	}
}
