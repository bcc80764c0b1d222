package readmodel

import (
	"context"
	"path/filepath"
	"testing"
	"time"
)

func TestHeartbeatAndServices(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "rm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if l, err := db.ListServices(ctx); err != nil || len(l) != 0 {
		t.Fatalf("empty: %v %v", l, err)
	}
	t0 := time.Date(2026, 1, 2, 3, 4, 5, 0, time.UTC)
	for i, host := range []string{"a", "b", "a", "a"} {
		if err := db.Heartbeat(ctx, host, "keel", t0.Add(time.Duration(i)*time.Second)); err != nil {
			t.Fatal(err)
		}
	}
	l, err := db.ListServices(ctx)
	if err != nil || len(l) != 2 {
		t.Fatalf("services: %v %v", l, err)
	}
	if l[0].Host != "a" || l[0].ReportCount != 3 || !l[0].CreatedAt.Equal(t0) || !l[0].UpdatedAt.Equal(t0.Add(3*time.Second)) || l[1].ReportCount != 1 {
		t.Fatalf("services: %+v", l)
	}
}

func TestQuotaAndStatsQueriesOnEmptyModel(t *testing.T) {
	ctx := context.Background()
	db, err := Open(ctx, filepath.Join(t.TempDir(), "rm.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	if q, err := db.GetQuota(ctx, "p"); q != nil || err != nil {
		t.Fatalf("quota %v %v", q, err)
	}
	if qs, err := db.ListQuotas(ctx, Scope{All: true}); len(qs) != 0 || err != nil {
		t.Fatalf("quotas %v %v", qs, err)
	}
	if c, n, err := db.ClusterStats(ctx, Scope{ProjectID: "p"}); c != 0 || n != 0 || err != nil {
		t.Fatalf("stats %d %d %v", c, n, err)
	}
}
