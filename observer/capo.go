package observer

import (
	"context"
	"sort"
	"strings"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime/schema"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// CAPO's objects (infrastructure.cluster.x-k8s.io/v1beta1; no Go module of
// CAPO is used, so they are read unstructured). They carry OpenStack's own
// words for a failure (a Neutron or Octavia error on the OpenStackCluster, a
// Nova error on an OpenStackMachine), which is the most specific cause keel
// can show.
const (
	capoGroup            = "infrastructure.cluster.x-k8s.io"
	capoVersion          = "v1beta1"
	kindOpenStackCluster = "OpenStackCluster"
	kindOpenStackMachine = "OpenStackMachine"
)

func capoList(kind string) *unstructured.UnstructuredList {
	l := &unstructured.UnstructuredList{}
	l.SetGroupVersionKind(schema.GroupVersionKind{Group: capoGroup, Version: capoVersion, Kind: kind + "List"})
	return l
}

func capoObject(kind string) *unstructured.Unstructured {
	u := &unstructured.Unstructured{}
	u.SetGroupVersionKind(schema.GroupVersionKind{Group: capoGroup, Version: capoVersion, Kind: kind})
	return u
}

// fillInfrastructure turns CAPO's terminal failures into the observation's
// failure, and its not-ready messages into the reason when nothing more
// specific was found; it collects the objects' candidate Events into evs.
func (o *Observer) fillInfrastructure(ctx context.Context, obs *status.Observation, stackID string, evs *[]status.Event) error {
	for _, kind := range []string{kindOpenStackCluster, kindOpenStackMachine} {
		l := capoList(kind)
		if err := o.cache.List(ctx, l, client.InNamespace(kube.Namespace), client.MatchingLabels{labelClusterName: stackID}); err != nil {
			return err
		}
		sort.Slice(l.Items, func(i, j int) bool { return l.Items[i].GetName() < l.Items[j].GetName() })
		for i := range l.Items {
			u := &l.Items[i]
			msg, _, _ := unstructured.NestedString(u.Object, "status", "failureMessage")
			reason, _, _ := unstructured.NestedString(u.Object, "status", "failureReason")
			if msg != "" && obs.Failure == "" {
				obs.Failure = kind + " " + u.GetName() + " failed: " + joinNonEmpty(reason, msg)
			}
			ready := capoReady(u)
			var err error
			if *evs, err = o.eventsOf(ctx, *evs, kind, u.GetName(), u.GetUID(), ready); err != nil {
				return err
			}
			if !ready && obs.Reason == "" {
				if m := falseCondition(u); m != "" {
					obs.Reason = kind + " " + u.GetName() + ": " + m
				}
			}
		}
	}
	return nil
}

// falseCondition is the first v1beta1-style condition of u that is False,
// as "Type: Reason: message".
func falseCondition(u *unstructured.Unstructured) string {
	conds, _, _ := unstructured.NestedSlice(u.Object, "status", "conditions")
	for _, c := range conds {
		m, ok := c.(map[string]any)
		if !ok || m["status"] != "False" {
			continue
		}
		t, _ := m["type"].(string)
		r, _ := m["reason"].(string)
		msg, _ := m["message"].(string)
		return joinNonEmpty(t, r, msg)
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
