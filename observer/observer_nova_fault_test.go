package observer

import (
	"context"
	"strings"
	"sync"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/utils/ptr"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// fakeNova stands in for Nova here (the real one is read in
// internal/openstack's TestRealOpenStackServerFaultReadsNovasMessage): it
// has one fault, and counts the reads.
type fakeNova struct {
	mu    sync.Mutex
	reads int
}

const novaFault = "No valid host was found. There are not enough hosts available. (code 500)"

func (f *fakeNova) ServerFault(_ context.Context, id string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.reads++
	if id == "srv-nvh" {
		return novaFault, nil
	}
	return "", nil
}

// A server that Nova scheduled and put in ERROR fails the operation with
// Nova's fault after CAPO's words (CAPO's OpenStackServer says only
// InstanceStateError); the fault is read once, however often the cluster
// is observed again.
func TestNovaFaultNamesTheCauseOfAServerInError(t *testing.T) {
	sink := &latestSink{last: map[string]*status.Observation{}, ch: make(chan struct{}, 1)}
	nova := &fakeNova{}
	o, err := New(env.Config, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.ReadServerFaults(nova)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = o.Run(ctx) }()

	const cluster, name = "kube-novafault", "kube-novafault-md-0-abcde"
	newCluster(t, cluster, "uuid-novafault")
	waitFirst(t, sink, "uuid-novafault")
	createFailedServer(t, cluster, name, clusterv1beta1.Condition{Type: infrav1.InstanceReadyCondition, Status: corev1.ConditionFalse,
		Severity: clusterv1beta1.ConditionSeverityError, Reason: infrav1.InstanceStateErrorReason}, "")
	srv := &infrav1alpha1.OpenStackServer{}
	if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: name}, srv); err != nil {
		t.Fatal(err)
	}
	srv.Status.InstanceID = ptr.To("srv-nvh")
	if err := env.Client.Status().Update(ctx, srv); err != nil {
		t.Fatal(err)
	}
	want := "OpenStackServer " + name + " failed: InstanceReady: InstanceStateError: Nova: " + novaFault
	waitUntil(t, "Nova's fault in the failure", func() bool {
		o := sink.get("uuid-novafault")
		return o != nil && o.Failure == want
	})
	// The cluster is observed again at each change: the last one shows.
	for _, available := range []bool{true, false, true} {
		cl := &clusterv1.Cluster{}
		if err := env.Client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: cluster}, cl); err != nil {
			t.Fatal(err)
		}
		setAvailable(t, cl, available)
	}
	waitUntil(t, "the last change observed", func() bool {
		o := sink.get("uuid-novafault")
		return o != nil && o.Available && o.Failure == want
	})
	nova.mu.Lock()
	defer nova.mu.Unlock()
	if nova.reads != 1 {
		t.Fatalf("Nova read %d times, want once", nova.reads)
	}
	if got := sink.get("uuid-novafault").Failure; !strings.HasSuffix(got, novaFault) {
		t.Fatalf("failure %q after more observations", got)
	}
}
