package reconciler

import (
	"context"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
)

// slowSink is a read model that takes its time to record an outcome.
type slowSink struct {
	Sink
	delay time.Duration
}

func (s slowSink) Applied(ctx context.Context, uuid, rev string, gen int64, err error) {
	time.Sleep(s.delay)
	s.Sink.Applied(ctx, uuid, rev, gen, err)
}

func changeAppliedSum(t *testing.T) (float64, uint64) {
	t.Helper()
	var m dto.Metric
	if err := metricChangeApplied.Write(&m); err != nil {
		t.Fatal(err)
	}
	return m.GetHistogram().GetSampleSum(), m.GetHistogram().GetSampleCount()
}

// keel_change_applied_seconds ends when the folder's objects are applied:
// recording the outcome afterwards (the inventory's conditions, the
// Event, the read model) is not the change's delay.
func TestChangeAppliedDelayExcludesStatusRecords(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	st := f.cluster("records", 1)
	f.write(st)
	f.rec.Sync(ctx)
	const delay = 2 * time.Second
	f.rec.sink = slowSink{Sink: f.sink, delay: delay}
	st.NodeGroups[1].NodeCount = 2
	f.write(st)
	sum, n := changeAppliedSum(t)
	f.rec.Sync(ctx)
	after, m := changeAppliedSum(t)
	if m != n+1 {
		t.Fatalf("%d delays recorded by the resize, want 1", m-n)
	}
	if got := after - sum; got >= delay.Seconds() {
		t.Fatalf("the resize's delay is %.2f s, which includes the read model's %s", got, delay)
	}
}
