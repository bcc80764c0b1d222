package readmodel_test

import (
	"context"
	"testing"

	"github.com/openkeel/keel/readmodel/rmtest"
)

// The outbox keeps at most its bound: trimming drops the oldest unsent
// notifications (and says how many), a sent one leaves it, and the rest
// stay in order.
func TestOutboxBound(t *testing.T) {
	for name, dsn := range rmtest.DSNs(t) {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			f := newFixture(t, dsn, "c1", "kube-abcde", nil, [2]string{"default-master", "master"}, [2]string{"default-worker", "worker"})
			f.write("init")
			for i := range 4 {
				f.st.NodeGroups[1].NodeCount = int64(i + 2)
				f.write("resize") // two updates pending each: the cluster's and its nodegroup's
			}
			if n, err := f.db.TrimNotifications(ctx, 6); err != nil || n != 2 {
				t.Fatalf("trimmed %d (%v), want 2", n, err)
			}
			ns, err := f.db.Notifications(ctx, 10)
			if err != nil || len(ns) != 6 || ns[0].Event.Cluster.NodeCount != 3 {
				t.Fatalf("after the trim: %d rows, first %+v (%v)", len(ns), ns, err)
			}
			if err := f.db.NotificationSent(ctx, ns[0].Seq); err != nil {
				t.Fatal(err)
			}
			if n, err := f.db.NotificationBacklog(ctx); err != nil || n != 5 {
				t.Fatalf("backlog %d (%v), want 5", n, err)
			}
		})
	}
}
