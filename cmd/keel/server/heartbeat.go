package server

import (
	"context"
	"log/slog"
	"os"
	"time"

	"github.com/openkeel/keel/readmodel"
)

// HeartbeatInterval is how often a keel instance reports itself alive for
// /v1/mservices (Magnum's report_interval is 10 s too).
const HeartbeatInterval = 10 * time.Second

// ServiceBinary is the binary each keel instance is listed as in
// /v1/mservices: Magnum's conductor, whose work (turning the API's intent
// into clusters, reporting their status) keel's reconciler and observer
// do, so that clients and monitoring that look for the conductor find it
// (docs/api.md, difference 16).
const ServiceBinary = "magnum-conductor"

// heartbeat records this instance in the read model's services table until
// ctx ends. The host is the machine's name, as Magnum's conductors report.
func heartbeat(ctx context.Context, db *readmodel.DB, log *slog.Logger) error {
	host, err := os.Hostname()
	if err != nil || host == "" {
		host = "localhost"
	}
	beat := func() {
		if err := recordHeartbeat(ctx, db, host, time.Now()); err != nil && ctx.Err() == nil {
			log.Warn("recording the service heartbeat", "err", err)
		}
	}
	beat()
	t := time.NewTicker(HeartbeatInterval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			beat()
		}
	}
}

// recordHeartbeat is one heartbeat of this instance, on host at now.
func recordHeartbeat(ctx context.Context, db *readmodel.DB, host string, now time.Time) error {
	return db.Heartbeat(ctx, host, ServiceBinary, now)
}
