package observer

import (
	"context"
	"fmt"
	"strings"
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// newOpenStackMachine creates an OpenStackMachine of cluster (no label when
// cluster is empty).
func newOpenStackMachine(t *testing.T, name, cluster string) *infrav1.OpenStackMachine {
	t.Helper()
	u := &infrav1.OpenStackMachine{
		ObjectMeta: metav1.ObjectMeta{Namespace: kube.Namespace, Name: name},
		Spec: infrav1.OpenStackMachineSpec{
			Flavor: ptr.To("m1.medium"), Image: infrav1.ImageParam{ID: ptr.To("5d8a1c8e-0b6f-4a57-9a1e-3c2b0f4d6e7a")},
		},
	}
	if cluster != "" {
		u.Labels = map[string]string{labelClusterName: cluster}
	}
	if err := env.Client.Create(context.Background(), u); err != nil {
		t.Fatal(err)
	}
	return u
}

var eventSeq int

// warnOn records a core/v1 Event about obj, as CAPO's recorder does.
func warnOn(t *testing.T, obj client.Object, apiVersion, kind, typ, reason, msg, component string) {
	t.Helper()
	eventSeq++
	now := metav1.Now()
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{Name: fmt.Sprintf("%s.%d", obj.GetName(), eventSeq), Namespace: kube.Namespace},
		InvolvedObject: corev1.ObjectReference{APIVersion: apiVersion, Kind: kind, Name: obj.GetName(),
			Namespace: kube.Namespace, UID: obj.GetUID()},
		Type: typ, Reason: reason, Message: msg, Source: corev1.EventSource{Component: component},
		FirstTimestamp: now, LastTimestamp: now, Count: 1,
	}
	if err := env.Client.Create(context.Background(), ev); err != nil {
		t.Fatal(err)
	}
}

var capoAPIVersion = infrav1.SchemeGroupVersion.String()

// derive is what the read model shows for an applied create started at
// started with observation o.
func derive(o *status.Observation, started time.Time) status.Result {
	return status.Derive(status.Input{Operation: status.OpCreate, InGit: true, DesiredRevision: "r1", AppliedRevision: "r1",
		MasterCount: 1, StartedAt: started, Deadline: time.Hour, Now: time.Now(), Observed: o})
}

func waitObservation(t *testing.T, sink *latestSink, uuid, what string, ok func(*status.Observation) bool) *status.Observation {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		if o := sink.get(uuid); o != nil && ok(o) {
			return o
		}
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s: %+v", what, sink.get(uuid))
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// A Warning Event on an OpenStackMachine of an in-progress cluster (Nova
// refusing the server for a quota, which CAPO keeps retrying) is stated in
// status_reason while the status stays CREATE_IN_PROGRESS.
func TestWarningEventOnOpenStackMachineIsTheReasonWhileInProgress(t *testing.T) {
	sink := startObserver(t)
	started := time.Now().Add(-time.Second)
	newCluster(t, "kube-evt01", "uuid-evt01")
	waitFirst(t, sink, "uuid-evt01")
	osm := newOpenStackMachine(t, "kube-evt01-md-0-abcde", "kube-evt01")

	warnOn(t, osm, capoAPIVersion, kindOpenStackMachine, corev1.EventTypeWarning, "FailedCreateServer",
		"Failed to create server: Quota exceeded for instances: Requested 1, but already used 10 of 10 instances", "openstackmachine-controller")
	o := waitObservation(t, sink, "uuid-evt01", "the Event in the observation", func(o *status.Observation) bool { return len(o.Events) > 0 })
	got := derive(o, started)
	if got.Status != status.CreateInProgress {
		t.Errorf("status %s (%s), want CREATE_IN_PROGRESS: an Event is never terminal", got.Status, got.StatusReason)
	}
	if want := "OpenStackMachine kube-evt01-md-0-abcde: FailedCreateServer: Failed to create server: Quota exceeded for instances"; !strings.HasPrefix(got.StatusReason, want) {
		t.Errorf("status_reason %q, want it to start with %q", got.StatusReason, want)
	}

	// Once CAPO reports the server ready, the Warning no longer explains
	// anything and leaves the observation.
	if err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(osm), osm); err != nil {
		t.Fatal(err)
	}
	osm.Status.Ready = true
	if err := env.Client.Status().Update(context.Background(), osm); err != nil {
		t.Fatal(err)
	}
	waitObservation(t, sink, "uuid-evt01", "the Event to go once the server is ready", func(o *status.Observation) bool { return len(o.Events) == 0 })
}

// A condition-based cause (a Machine's InfrastructureReady) beats a newer
// Warning Event on the Cluster.
func TestConditionCauseBeatsEvent(t *testing.T) {
	sink := startObserver(t)
	ctx := context.Background()
	started := time.Now().Add(-time.Second)
	cl := newCluster(t, "kube-evt02", "uuid-evt02")
	waitFirst(t, sink, "uuid-evt02")

	m := &clusterv1.Machine{
		ObjectMeta: metav1.ObjectMeta{Name: "kube-evt02-md-0-xyz", Namespace: kube.Namespace, Labels: map[string]string{labelClusterName: cl.Name}},
		Spec: clusterv1.MachineSpec{ClusterName: cl.Name,
			Bootstrap:         clusterv1.Bootstrap{DataSecretName: ptr.To("bootstrap")},
			InfrastructureRef: clusterv1.ContractVersionedObjectReference{APIGroup: capoGroup, Kind: kindOpenStackMachine, Name: "kube-evt02-md-0-xyz"}},
	}
	if err := env.Client.Create(ctx, m); err != nil {
		t.Fatal(err)
	}
	m.Status.Conditions = []metav1.Condition{{Type: clusterv1.MachineInfrastructureReadyCondition, Status: metav1.ConditionFalse,
		Reason: "InstanceCreateFailed", Message: "Quota exceeded for cores", LastTransitionTime: metav1.Now()}}
	if err := env.Client.Status().Update(ctx, m); err != nil {
		t.Fatal(err)
	}
	warnOn(t, cl, clusterv1.GroupVersion.String(), "Cluster", corev1.EventTypeWarning, "TopologyReconcileFailed", "the newest Cluster Event", "topology/cluster-controller")

	o := waitObservation(t, sink, "uuid-evt02", "the condition and the Event", func(o *status.Observation) bool {
		return len(o.Events) > 0 && o.Reason != ""
	})
	got := derive(o, started)
	if got.Status != status.CreateInProgress || !strings.Contains(got.StatusReason, "Machine kube-evt02-md-0-xyz: InfrastructureReady: InstanceCreateFailed: Quota exceeded for cores") {
		t.Errorf("status %s (%q), want CREATE_IN_PROGRESS with the Machine's condition", got.Status, got.StatusReason)
	}
	if strings.Contains(got.StatusReason, "TopologyReconcileFailed") {
		t.Errorf("status_reason %q echoes the Event although a condition says why", got.StatusReason)
	}
}

// Events of objects that belong to no known cluster, Normal Events and keel's
// own Warnings change nothing; an Event of another cluster's object reaches
// that cluster only (it is not recomputed for the others).
func TestEventOfUnrelatedObjectChangesNothing(t *testing.T) {
	sink := startObserver(t)
	cl := newCluster(t, "kube-evt03", "uuid-evt03")
	newCluster(t, "kube-evt04", "uuid-evt04")
	waitFirst(t, sink, "uuid-evt03")
	waitFirst(t, sink, "uuid-evt04")
	before := sink.get("uuid-evt03")

	orphan := newOpenStackMachine(t, "orphan-abcde", "")
	warnOn(t, orphan, capoAPIVersion, kindOpenStackMachine, corev1.EventTypeWarning, "FailedCreateServer", "orphan", "openstackmachine-controller")
	ghost := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: "kube-nothere", UID: "0000"}}
	warnOn(t, ghost, clusterv1.GroupVersion.String(), "Cluster", corev1.EventTypeWarning, "Ghost", "no such cluster", "cluster-controller")
	warnOn(t, cl, clusterv1.GroupVersion.String(), "Cluster", corev1.EventTypeNormal, "Provisioning", "normal", "cluster-controller")
	warnOn(t, cl, clusterv1.GroupVersion.String(), "Cluster", corev1.EventTypeWarning, "ReconciliationFailed", "keel's own", status.KeelEventSource)
	other := newOpenStackMachine(t, "kube-evt04-md-0-abcde", "kube-evt04")
	warnOn(t, other, capoAPIVersion, kindOpenStackMachine, corev1.EventTypeWarning, "FailedCreateServer", "other cluster", "openstackmachine-controller")

	// The Events are handled in order: once the last one reached its
	// cluster, the others were seen too.
	waitObservation(t, sink, "uuid-evt04", "the other cluster's Event", func(o *status.Observation) bool {
		return len(o.Events) == 1 && o.Events[0].Message == "other cluster"
	})
	after := sink.get("uuid-evt03")
	if after != before {
		t.Errorf("cluster kube-evt03 was recomputed for Events that are not its causes: %+v", after)
	}
	if len(after.Events) != 0 || after.Reason != "" {
		t.Errorf("kube-evt03 shows events %+v, reason %q; want none", after.Events, after.Reason)
	}
}
