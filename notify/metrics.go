package notify

import (
	"github.com/prometheus/client_golang/prometheus"
	ctrlmetrics "sigs.k8s.io/controller-runtime/pkg/metrics"
)

// keel serves controller-runtime's registry on /metrics.
var (
	metricBacklog = prometheus.NewGauge(prometheus.GaugeOpts{
		Name: "keel_notifications_outbox", Help: "Notifications recorded and not yet confirmed by the broker (bounded by --notifications-outbox-bound).",
	})
	metricSent = prometheus.NewCounterVec(prometheus.CounterOpts{
		Name: "keel_notifications_sent_total", Help: "Notifications the broker confirmed, by event type and outcome.",
	}, []string{"event_type", "outcome"})
	metricDropped = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "keel_notifications_dropped_total", Help: "Notifications dropped because the outbox was full.",
	})
	metricErrors = prometheus.NewCounter(prometheus.CounterOpts{
		Name: "keel_notifications_send_errors_total", Help: "Failed attempts to send the outbox (each retried).",
	})
	metricDelay = prometheus.NewHistogram(prometheus.HistogramOpts{
		Name: "keel_notifications_delay_seconds", Help: "Time from the change to the broker's confirm of its notification.",
		Buckets: prometheus.ExponentialBuckets(0.01, 2, 16),
	})
)

func init() {
	ctrlmetrics.Registry.MustRegister(metricBacklog, metricSent, metricDropped, metricErrors, metricDelay)
}
