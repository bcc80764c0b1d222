package simulator

import (
	"context"
	"fmt"
	"unicode/utf8"

	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	utilrand "k8s.io/apimachinery/pkg/util/rand"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/log"
)

const (
	eventNormal  = corev1.EventTypeNormal
	eventWarning = corev1.EventTypeWarning
	// eventSource is the component the simulator's Events are reported by.
	eventSource = "keel-simulator"
	// maxEventMessage keeps messages within what the API server accepts.
	maxEventMessage = 1024
)

// event records a core/v1 Event on the Cluster, where CAPI's controllers
// report progress and where keel (like the reference driver) reads the
// latest one as the status reason. Events are created synchronously, rather
// than through a broadcaster, so that they are in the API server, in order,
// by the time the step that caused them returns. They are best effort: a
// failure is logged, never retried.
func (r *reconciler) event(ctx context.Context, c *clusterv1.Cluster, typ, reason, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	if len(msg) > maxEventMessage {
		msg = msg[:maxEventMessage]
		for !utf8.ValidString(msg) {
			msg = msg[:len(msg)-1]
		}
	}
	now := metav1.NewTime(r.now())
	ev := &corev1.Event{
		ObjectMeta: metav1.ObjectMeta{
			// client-go's recorder names events <object>.<time>; the random
			// tail keeps two events of one step apart on a coarse clock.
			Name:      fmt.Sprintf("%s.%x%s", c.Name, now.UnixNano(), utilrand.String(4)),
			Namespace: c.Namespace,
		},
		InvolvedObject: corev1.ObjectReference{
			APIVersion: clusterv1.GroupVersion.String(),
			Kind:       "Cluster",
			Name:       c.Name,
			Namespace:  c.Namespace,
			UID:        c.UID,
		},
		Reason:         reason,
		Message:        msg,
		Type:           typ,
		Source:         corev1.EventSource{Component: eventSource},
		FirstTimestamp: now,
		LastTimestamp:  now,
		Count:          1,
	}
	if err := r.client.Create(ctx, ev); err != nil {
		log.FromContext(ctx).Info("cannot record event", "reason", reason, "error", err.Error())
	}
}
