package server

import (
	"context"
	"path/filepath"
	"testing"
	"time"

	"github.com/openkeel/keel/readmodel"
)

// A keel instance's heartbeat lists it as Magnum's conductor in
// /v1/mservices: magnum-tempest-plugin's test_magnum_service_list and
// monitoring written for Magnum look for binary magnum-conductor.
func TestHeartbeatListsMagnumConductor(t *testing.T) {
	ctx := context.Background()
	db, err := readmodel.Open(ctx, filepath.Join(t.TempDir(), "keel.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	now := time.Now()
	for i := range 2 {
		if err := recordHeartbeat(ctx, db, "host-a", now.Add(time.Duration(i)*HeartbeatInterval)); err != nil {
			t.Fatal(err)
		}
	}
	svcs, err := db.ListServices(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(svcs) != 1 || svcs[0].Binary != "magnum-conductor" || svcs[0].Host != "host-a" || svcs[0].ReportCount != 2 {
		t.Fatalf("services after two heartbeats: %+v, want one magnum-conductor on host-a with report_count 2", svcs)
	}
}
