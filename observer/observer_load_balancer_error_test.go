package observer

import (
	"context"
	"sync"
	"testing"
	"time"

	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// fakeOctavia stands in for Octavia here (the real one is asked in
// internal/openstack's TestRealOpenStackLoadBalancerFault…): it answers
// fault for the load balancers it is asked about, and records the asks.
type fakeOctavia struct {
	mu    sync.Mutex
	fault string
	asked []string // "project/name"
}

func (f *fakeOctavia) LoadBalancerFault(_ context.Context, project, name string) (string, error) {
	f.mu.Lock()
	defer f.mu.Unlock()
	f.asked = append(f.asked, project+"/"+name)
	return f.fault, nil
}

func (f *fakeOctavia) set(fault string) { f.mu.Lock(); f.fault = fault; f.mu.Unlock() }

func (f *fakeOctavia) reset() { f.mu.Lock(); f.asked = nil; f.mu.Unlock() }

func (f *fakeOctavia) askedAbout() []string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return append([]string(nil), f.asked...)
}

// projectSink is latestSink that knows every cluster's project.
type projectSink struct{ *latestSink }

func (projectSink) ClusterProjectByStackID(context.Context, string) (string, error) {
	return "p-lb", nil
}

// A cluster whose OpenStackCluster waits for its API load balancer is
// asked about again while nothing changes in the management cluster (CAPO
// writes nothing for six minutes while it waits), with CAPO's name for the
// load balancer in the cluster's project; once Octavia has put it in
// ERROR, the observation fails with Octavia's words. A ready
// OpenStackCluster is not asked about.
func TestLoadBalancerInErrorFailsTheCluster(t *testing.T) {
	sink := projectSink{&latestSink{last: map[string]*status.Observation{}, ch: make(chan struct{}, 1)}}
	octavia := &fakeOctavia{}
	o, err := New(env.Config, sink, nil)
	if err != nil {
		t.Fatal(err)
	}
	o.CheckLoadBalancers(octavia, 50*time.Millisecond)
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	go func() { _ = o.Run(ctx) }()

	newCluster(t, "kube-lberr", "uuid-lberr")
	newOpenStackCluster(t, "kube-lberr", false)
	newOpenStackCluster(t, "kube-lbok", true) // ready before its Cluster is there to observe
	newCluster(t, "kube-lbok", "uuid-lbok")
	waitFirst(t, sink.latestSink, "uuid-lbok")
	want := "p-lb/k8s-clusterapi-cluster-" + kube.Namespace + "-kube-lberr-kubeapi"
	// The ready one was briefly not ready (created, then its status set):
	// what the observer asked before it had seen it ready does not count.
	waitUntil(t, "an ask about the waiting load balancer", func() bool { return len(octavia.askedAbout()) >= 1 })
	octavia.reset()
	waitUntil(t, "two more asks about the waiting load balancer", func() bool { return len(octavia.askedAbout()) >= 2 })
	for _, a := range octavia.askedAbout() {
		if a != want {
			t.Fatalf("asked about %s, want only %s", a, want)
		}
	}
	if o := sink.get("uuid-lberr"); o == nil || o.Failure != "" {
		t.Fatalf("observation %+v before the ERROR, want no failure", o)
	}
	const fault = "Octavia load balancer x (id) is in ERROR: provisioning_status ERROR, operating_status OFFLINE"
	octavia.set(fault)
	waitUntil(t, "the failure", func() bool {
		o := sink.get("uuid-lberr")
		return o != nil && o.Failure == "API load balancer: "+fault
	})
}

// newOpenStackCluster writes an OpenStackCluster of cluster with an API
// load balancer (CAPO's default), ready or not.
func newOpenStackCluster(t *testing.T, cluster string, ready bool) {
	t.Helper()
	ctx := context.Background()
	osc := &infrav1.OpenStackCluster{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: cluster, Labels: map[string]string{labelClusterName: cluster}},
		Spec: infrav1.OpenStackClusterSpec{
			IdentityRef:           infrav1.OpenStackIdentityReference{Type: "Secret", Name: cluster + "-cloud-config", CloudName: "default"},
			APIServerLoadBalancer: &infrav1.APIServerLoadBalancer{Enabled: ptr.To(true)},
		},
	}
	if err := env.Client.Create(ctx, osc); err != nil {
		t.Fatal(err)
	}
	osc.Status.Ready = ready
	if err := env.Client.Status().Update(ctx, osc); err != nil {
		t.Fatal(err)
	}
}

func waitUntil(t *testing.T, what string, ok func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !ok() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(20 * time.Millisecond)
	}
}
