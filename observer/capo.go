package observer

import (
	"cmp"
	"context"
	"regexp"
	"sort"
	"strings"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/utils/ptr"
	infrav1alpha1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1alpha1"
	infrav1 "sigs.k8s.io/cluster-api-provider-openstack/api/v1beta1"
	clusterv1beta1 "sigs.k8s.io/cluster-api/api/core/v1beta1"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// CAPO's objects (infrastructure.cluster.x-k8s.io/v1beta1, read with CAPO's
// typed API). They carry OpenStack's own words for a failure (a Neutron or
// Octavia error on the OpenStackCluster, a Nova error on an
// OpenStackMachine), which is the most specific cause keel can show.
const (
	capoGroup            = "infrastructure.cluster.x-k8s.io"
	kindOpenStackCluster = "OpenStackCluster"
	kindOpenStackMachine = "OpenStackMachine"
	kindOpenStackServer  = "OpenStackServer"
)

func capoObject(kind string) client.Object {
	if kind == kindOpenStackMachine {
		return &infrav1.OpenStackMachine{}
	}
	return &infrav1.OpenStackCluster{}
}

// capoStatus is what the observer reads of an OpenStackCluster or
// OpenStackMachine: the two kinds share these status fields.
type capoStatus struct {
	kind, name     string
	uid            types.UID
	ready          bool
	failureReason  string
	failureMessage string
	conditions     clusterv1beta1.Conditions
	// waitingLB is, for an OpenStackCluster, the name of the API load
	// balancer it waits for (waitingLoadBalancer).
	waitingLB string
}

// capoObjects lists the kind's objects of one cluster, sorted by name.
func (o *Observer) capoObjects(ctx context.Context, kind, stackID string) ([]capoStatus, error) {
	opts := ofCluster(stackID)
	var out []capoStatus
	if kind == kindOpenStackMachine {
		var l infrav1.OpenStackMachineList
		if err := o.cache.List(ctx, &l, opts...); err != nil {
			return nil, err
		}
		for i := range l.Items {
			m := &l.Items[i]
			out = append(out, capoStatus{kind, m.Name, m.UID, m.Status.Ready,
				ptr.Deref((*string)(m.Status.FailureReason), ""), capoMachineMessage(ptr.Deref(m.Status.FailureMessage, "")), m.Status.Conditions, ""})
		}
	} else {
		var l infrav1.OpenStackClusterList
		if err := o.cache.List(ctx, &l, opts...); err != nil {
			return nil, err
		}
		for i := range l.Items {
			c := &l.Items[i]
			out = append(out, capoStatus{kind, c.Name, c.UID, c.Status.Ready,
				ptr.Deref((*string)(c.Status.FailureReason), ""), ptr.Deref(c.Status.FailureMessage, ""), c.Status.Conditions,
				waitingLoadBalancer(c, stackID)})
		}
	}
	sort.Slice(out, func(i, j int) bool { return out[i].name < out[j].name })
	return out, nil
}

// fillInfrastructure turns CAPO's terminal failures into the observation's
// failure, and its not-ready messages into the reason when nothing more
// specific was found; it collects the objects' candidate Events into evs.
// Last, with no other failure found, it asks Octavia about the API load
// balancer an OpenStackCluster waits for (fillLoadBalancer).
func (o *Observer) fillInfrastructure(ctx context.Context, obs *status.Observation, stackID string, evs *[]status.Event) error {
	lb := ""
	for _, kind := range []string{kindOpenStackCluster, kindOpenStackMachine} {
		objs, err := o.capoObjects(ctx, kind, stackID)
		if err != nil {
			return err
		}
		for _, u := range objs {
			lb = cmp.Or(lb, u.waitingLB)
			if u.failureMessage != "" && obs.Failure == "" {
				obs.Failure = kind + " " + u.name + " failed: " + joinNonEmpty(u.failureReason, u.failureMessage)
				if kind == kindOpenStackMachine {
					obs.Failure += o.serverFault(ctx, u.name)
				}
			}
			if obs.Failure == "" && kind == kindOpenStackMachine {
				obs.Failure = o.serverFailure(ctx, u.name)
			}
			if q := quotaFailure(u.conditions); obs.Failure == "" && q != "" {
				obs.Failure = kind + " " + u.name + ": " + q
			}
			if *evs, err = o.eventsOf(ctx, *evs, kind, u.name, u.uid, u.ready); err != nil {
				return err
			}
			if !u.ready && obs.Reason == "" {
				if m := falseCondition(u.conditions); m != "" {
					obs.Reason = kind + " " + u.name + ": " + m
				}
			}
		}
	}
	return o.fillLoadBalancer(ctx, obs, stackID, lb)
}

// serverNotReady reads the OpenStackServer of the OpenStackMachine name
// (CAPO v0.14 creates the server through an OpenStackServer of the same
// name) and its InstanceReady condition when that is False; nil for what
// is not there.
func (o *Observer) serverNotReady(ctx context.Context, name string) (*infrav1alpha1.OpenStackServer, *clusterv1beta1.Condition) {
	s := &infrav1alpha1.OpenStackServer{}
	if err := o.cache.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: name}, s); err != nil {
		return nil, nil
	}
	for i, c := range s.Status.Conditions {
		if c.Type == infrav1.InstanceReadyCondition && c.Status == corev1.ConditionFalse {
			return s, &s.Status.Conditions[i]
		}
	}
	return s, nil
}

// serverFault is OpenStack's own error for the server of the
// OpenStackMachine name, as " (OpenStackServer NAME: InstanceReady:
// InstanceCreateFailed: <Nova's or Neutron's answer>)", or "". CAPO puts
// the error of a failed create (a quota exceeded, an image that does not
// exist) only on the OpenStackServer; the OpenStackMachine says "instance
// state ERROR is unexpected", which names no cause.
func (o *Observer) serverFault(ctx context.Context, name string) string {
	if _, c := o.serverNotReady(ctx, name); c != nil && c.Message != "" {
		return " (" + kindOpenStackServer + " " + name + ": " + joinNonEmpty(string(c.Type), c.Reason, c.Message) + ")"
	}
	return ""
}

// serverFailure is the failure of the OpenStackServer of the
// OpenStackMachine name when Nova refused to create it (a quota exceeded,
// an image gone: InstanceCreateFailed with Nova's answer) or put it in
// ERROR (no valid host: InstanceStateError), or "". In both cases CAPO
// v0.14.7 marks the server failed and never retries it, but leaves the
// OpenStackMachine waiting for it without a failure, so Cluster API never
// fails the Machine and the operation would run until its timeout; keel
// fails it at once with what CAPO knows.
func (o *Observer) serverFailure(ctx context.Context, name string) string {
	s, c := o.serverNotReady(ctx, name)
	if s == nil || ptr.Deref(s.Status.InstanceState, "") != infrav1.InstanceStateError {
		return ""
	}
	if c != nil {
		return kindOpenStackServer + " " + name + " failed: " + joinNonEmpty(string(c.Type), c.Reason, c.Message) + o.novaFault(ctx, s)
	}
	return kindOpenStackServer + " " + name + " failed: instance state " + string(infrav1.InstanceStateError) + o.novaFault(ctx, s)
}

// pointerState is CAPO v0.14.7 printing a pointer where it means the
// instance state ("instance state 0xc000a1b2c3 is unexpected").
var pointerState = regexp.MustCompile(`instance state 0x[0-9a-f]+ is unexpected`)

// capoMachineMessage is an OpenStackMachine's failure message with CAPO's
// pointer replaced by the state it points to: the only state CAPO fails a
// machine for is ERROR.
func capoMachineMessage(msg string) string {
	return pointerState.ReplaceAllString(msg, "instance state "+string(infrav1.InstanceStateError)+" is unexpected")
}

// falseCondition is the first v1beta1-style condition that is False, as
// "Type: Reason: message".
func falseCondition(conds clusterv1beta1.Conditions) string {
	for _, c := range conds {
		if c.Status == corev1.ConditionFalse {
			return joinNonEmpty(string(c.Type), c.Reason, c.Message)
		}
	}
	return ""
}

func joinNonEmpty(parts ...string) string {
	var out []string
	for _, p := range parts {
		if p = strings.TrimSpace(p); p != "" {
			out = append(out, p)
		}
	}
	return strings.Join(out, ": ")
}
