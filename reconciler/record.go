package reconciler

import (
	"context"
	"encoding/json"
	"errors"
	"time"

	"github.com/fluxcd/pkg/apis/meta"
	"github.com/fluxcd/pkg/runtime/conditions"
	"github.com/prometheus/client_golang/prometheus"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	corev1ac "k8s.io/client-go/applyconfigurations/core/v1"
	"k8s.io/client-go/tools/record"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/status"
)

// What the reconciler records per folder, Flux-style: the last attempted and
// last applied revision and Ready / Reconciling / Stalled conditions, kept on
// the folder's inventory ConfigMap (so `kubectl describe` and `keel status`
// show them, and a restart resumes from them); a Kubernetes Event on the CAPI
// Cluster for each outcome; and Prometheus metrics.
const (
	attemptedAnnotation  = "keel.openkeel.io/attempted-revision"
	conditionsAnnotation = "keel.openkeel.io/conditions"
	statusFieldManager   = "keel-status"
)

// Reasons of the conditions and events.
const (
	ReasonSucceeded = "ReconciliationSucceeded"
	ReasonFailed    = "ReconciliationFailed"
	ReasonRetrying  = "ProgressingWithRetry"
)

var (
	metricReconciles = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "keel_reconcile_total", Help: "Folders reconciled, by kind (cluster, clusterclass) and result (success, error, stalled, waiting).",
	}, []string{"kind", "result"})
	metricDuration = prometheus.NewHistogramVec(prometheus.HistogramOpts{
		Name: "keel_reconcile_duration_seconds", Help: "Time to reconcile one folder.",
		Buckets: prometheus.ExponentialBuckets(0.005, 2, 14),
	}, []string{"kind"})
	metricPending = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "keel_reconcile_pending", Help: "Folders waiting to be reconciled (changed, retrying or tearing down).",
	})
	metricReady = prometheus.NewGaugeVec(prometheus.GaugeOpts{
		Name: "keel_cluster_ready", Help: "1 when a cluster's folder is applied at its latest revision, 0 otherwise.",
	}, []string{"unit"})
)

func init() {
	ctrlmetrics.Registry.MustRegister(metricReconciles, metricDuration, metricPending, metricReady)
}

// unitConditions adapts an inventory ConfigMap to fluxcd's conditions
// helpers.
type unitConditions struct {
	*corev1.ConfigMap
	conds []metav1.Condition
}

func (u *unitConditions) GetConditions() []metav1.Condition  { return u.conds }
func (u *unitConditions) SetConditions(c []metav1.Condition) { u.conds = c }

// Conditions returns the conditions recorded for a folder's inventory.
func Conditions(cm *corev1.ConfigMap) []metav1.Condition {
	var conds []metav1.Condition
	_ = json.Unmarshal([]byte(cm.Annotations[conditionsAnnotation]), &conds)
	return conds
}

func unitKind(clusterUUID string) string {
	if clusterUUID == "" {
		return "clusterclass"
	}
	return "cluster"
}

// record stores the outcome of one attempt.
func (r *Reconciler) record(ctx context.Context, t target, started time.Time, err error) {
	unit, id, stackID, clusterUUID, rev := t.unit, t.id, t.stackID, t.clusterUUID, t.rev
	kind := unitKind(clusterUUID)
	metricDuration.WithLabelValues(kind).Observe(time.Since(started).Seconds())
	var cm corev1.ConfigMap
	getErr := r.client.Get(ctx, client.ObjectKey{Namespace: kube.Namespace, Name: inventoryName(id)}, &cm)
	if getErr != nil && !apierrors.IsNotFound(getErr) {
		r.o.Log.Warn("recording reconcile status", "unit", unit, "err", getErr)
		return
	}
	u := &unitConditions{ConfigMap: &cm, conds: Conditions(&cm)}
	var stalled *status.Stalled
	result := "success"
	eventType, reason, msg := corev1.EventTypeNormal, ReasonSucceeded, "Applied revision "+intent.ShortRevision(rev)
	switch {
	case errors.As(err, &stalled):
		result = "stalled"
		conditions.MarkStalled(u, stalled.Reason, "%s", stalled.Message)
		conditions.MarkFalse(u, meta.ReadyCondition, stalled.Reason, "%s", stalled.Message)
		eventType, reason, msg = corev1.EventTypeWarning, stalled.Reason, stalled.Message
	case errors.Is(err, errWaiting):
		result = "waiting"
		conditions.MarkReconciling(u, ReasonRetrying, "%s", err.Error())
		eventType, reason, msg = corev1.EventTypeNormal, ReasonRetrying, err.Error()
	case err != nil:
		result = "error"
		conditions.MarkReconciling(u, ReasonRetrying, "Applying revision %s failed and is retried", intent.ShortRevision(rev))
		conditions.MarkFalse(u, meta.ReadyCondition, ReasonFailed, "%s", err.Error())
		eventType, reason, msg = corev1.EventTypeWarning, ReasonFailed, err.Error()
	default:
		conditions.Delete(u, meta.ReconcilingCondition)
		conditions.Delete(u, meta.StalledCondition)
		conditions.MarkTrue(u, meta.ReadyCondition, ReasonSucceeded, "Applied revision %s", intent.ShortRevision(rev))
	}
	metricReconciles.WithLabelValues(kind, result).Inc()
	ready := 0.0
	if err == nil {
		ready = 1
	}
	metricReady.WithLabelValues(unit).Set(ready)

	data, _ := json.Marshal(u.conds)
	labels := map[string]string{inventoryLabel: id, inventoryRepoLabel: r.repoID}
	if clusterUUID != "" {
		// Also on the empty inventory of a failed first apply: its
		// teardown reports the cluster gone by it.
		labels[inventoryClusterUUIDLabel] = clusterUUID
	}
	patch := corev1ac.ConfigMap(inventoryName(id), kube.Namespace).
		WithLabels(labels).
		WithAnnotations(map[string]string{attemptedAnnotation: rev, conditionsAnnotation: string(data), inventoryUnitAnnotation: unit})
	if getErr != nil || cm.Data[inventoryKey] == "[]" {
		// No inventory yet (the first apply failed): keep an empty one, on
		// every failure until an apply saves one. Server-side apply
		// deletes a field its manager owned and leaves out, so leaving
		// the data out of the second patch would delete it.
		patch.WithData(map[string]string{inventoryKey: "[]"})
	}
	if perr := r.client.Apply(ctx, patch, client.FieldOwner(statusFieldManager), client.ForceOwnership); perr != nil {
		r.o.Log.Warn("recording reconcile status", "unit", unit, "err", perr)
	}
	if r.o.Recorder != nil && stackID != "" {
		ref := &clusterv1.Cluster{ObjectMeta: metav1.ObjectMeta{Name: stackID, Namespace: kube.Namespace}}
		if gerr := r.client.Get(ctx, client.ObjectKeyFromObject(ref), ref); gerr == nil {
			r.o.Recorder.Event(ref, eventType, reason, msg)
		}
	}
}

// Recorder is what the reconciler emits Events with.
type Recorder = record.EventRecorder
