package observer

import (
	"context"
	"time"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"k8s.io/apimachinery/pkg/types"
	controlplanev1 "sigs.k8s.io/cluster-api/api/controlplane/kubeadm/v1beta2"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// Events are the last-resort cause of a cluster's status_reason (see
// status.EventCause). Only Warning Events are cached (a field selector: the
// Normal ones, most of them, never reach keel), indexed by the object they
// are about, so that observing a cluster looks up the Events of its own
// objects and an Event enqueues only the cluster it belongs to.
const indexInvolvedObject = "keel.involvedObject"

func involvedKey(kind, name string) string { return kind + "/" + name }

func indexEvent(obj client.Object) []string {
	ev, ok := obj.(*corev1.Event)
	if !ok {
		return nil
	}
	return []string{involvedKey(ev.InvolvedObject.Kind, ev.InvolvedObject.Name)}
}

// eventKinds are the objects whose Events are read, by kind: the API group
// they must come from and an empty object to look them up in the caches.
var eventKinds = map[string]struct {
	group string
	empty func() client.Object
}{
	"Cluster":             {clusterv1.GroupVersion.Group, func() client.Object { return &clusterv1.Cluster{} }},
	"Machine":             {clusterv1.GroupVersion.Group, func() client.Object { return &clusterv1.Machine{} }},
	"MachineDeployment":   {clusterv1.GroupVersion.Group, func() client.Object { return &clusterv1.MachineDeployment{} }},
	"KubeadmControlPlane": {controlplanev1.GroupVersion.Group, func() client.Object { return &controlplanev1.KubeadmControlPlane{} }},
	kindOpenStackCluster:  {capoGroup, func() client.Object { return capoObject(kindOpenStackCluster) }},
	kindOpenStackMachine:  {capoGroup, func() client.Object { return capoObject(kindOpenStackMachine) }},
}

// enqueueEvent maps an Event to its cluster through the object it is about,
// looked up in the informer caches (no API call per Event). Events of objects
// that belong to no cluster the caches know are dropped.
func (o *Observer) enqueueEvent(ctx context.Context, x any) {
	ev := asEvent(x)
	if ev == nil || !toStatusEvent(ev).Candidate() {
		return
	}
	ref := ev.InvolvedObject
	k, ok := eventKinds[ref.Kind]
	if !ok || (ref.APIVersion != "" && groupOf(ref.APIVersion) != k.group) {
		return
	}
	obj := k.empty()
	if err := o.cache.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: ref.Name}, obj); err != nil {
		// Not cached yet: when it is, its own informer enqueues the cluster,
		// whose observation then finds this Event through the index.
		return
	}
	if ref.UID != "" && ref.UID != obj.GetUID() {
		return // about an earlier object of the same name
	}
	stackID := obj.GetLabels()[labelClusterName]
	if ref.Kind == "Cluster" {
		stackID = obj.GetName()
	}
	if stackID != "" {
		o.queue.Add(stackID)
	}
}

func asEvent(x any) *corev1.Event {
	if d, ok := x.(interface{ GetObj() any }); ok {
		x = d.GetObj()
	}
	ev, _ := x.(*corev1.Event)
	return ev
}

func groupOf(apiVersion string) string {
	gv, err := schema.ParseGroupVersion(apiVersion)
	if err != nil {
		return ""
	}
	return gv.Group
}

// eventsOf appends the candidate Events of one of a cluster's objects to evs.
// An object that is ready now has nothing left to explain, so its Warnings
// (e.g. a server creation retried until the quota allowed it) are dropped;
// Events about an earlier object of the same name (another UID) too.
func (o *Observer) eventsOf(ctx context.Context, evs []status.Event, kind, name string, uid types.UID, ready bool) ([]status.Event, error) {
	if ready {
		return evs, nil
	}
	var l corev1.EventList
	if err := o.cache.List(ctx, &l, client.InNamespace(kube.Namespace), client.MatchingFields{indexInvolvedObject: involvedKey(kind, name)}); err != nil {
		return evs, err
	}
	for i := range l.Items {
		ev := &l.Items[i]
		if ev.InvolvedObject.UID != "" && ev.InvolvedObject.UID != uid {
			continue
		}
		if ref := ev.InvolvedObject.APIVersion; ref != "" && groupOf(ref) != eventKinds[kind].group {
			continue
		}
		if e := toStatusEvent(ev); e.Candidate() {
			evs = append(evs, e)
		}
	}
	return evs, nil
}

func toStatusEvent(ev *corev1.Event) status.Event {
	source := ev.ReportingController
	if source == "" || ev.Source.Component == status.KeelEventSource {
		source = ev.Source.Component
	}
	return status.Event{
		Kind: ev.InvolvedObject.Kind, Name: ev.InvolvedObject.Name,
		Type: ev.Type, Reason: ev.Reason, Message: ev.Message, Source: source,
		At: eventTime(ev),
	}
}

// eventTime is when an Event was last seen: core/v1 Events count repeats in
// lastTimestamp, events.k8s.io ones in series.lastObservedTime.
func eventTime(ev *corev1.Event) (t time.Time) {
	t = ev.CreationTimestamp.Time
	for _, c := range []time.Time{ev.FirstTimestamp.Time, ev.LastTimestamp.Time, ev.EventTime.Time} {
		if c.After(t) {
			t = c
		}
	}
	if ev.Series != nil && ev.Series.LastObservedTime.After(t) {
		t = ev.Series.LastObservedTime.Time
	}
	return t
}
