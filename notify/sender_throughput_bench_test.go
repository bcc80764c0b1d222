package notify_test

import (
	"context"
	"fmt"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
	"github.com/openkeel/keel/notify"
	"github.com/openkeel/keel/notify/amqp"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/readmodel"
)

// BenchmarkSenderThroughput is the sender's rate to a real RabbitMQ, each
// notification published with a confirm, one topic, as docs/notifications.md
// reports it. The outbox is held in memory so that the figure is the
// broker path's; the read model's delete of each sent row (SQLite or
// PostgreSQL) adds its own cost. Run with a fixed count, since each run
// starts its own broker:
//
//	go test -run '^$' -bench SenderThroughput -benchtime 5000x ./notify
func BenchmarkSenderThroughput(b *testing.B) {
	rmq := rabbitmqtest.Start(b)
	pub := amqp.New(amqp.Options{URLs: []string{rmq.URL()}, Exchange: "magnum"})
	defer pub.Close()
	ob := &fakeOutbox{}
	for i := range b.N {
		ob.rows = append(ob.rows, readmodel.Notification{Seq: int64(i + 1), Event: oslo.Event{
			MessageID: fmt.Sprintf("00000000-0000-4000-8000-%012d", i), Action: oslo.ActionUpdate,
			Outcome: oslo.OutcomeSuccess, Time: time.Now(), ClusterUUID: fmt.Sprint(i % 100), ClusterName: "bench"}})
	}
	// The connection and the queue's declaration are not the rate.
	if err := pub.Publish(context.Background(), "notifications.info", []byte(`{}`)); err != nil {
		b.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &notify.Sender{Outbox: ob, Publisher: pub, Host: "bench", Poll: time.Millisecond}
	b.ResetTimer()
	go func() { _ = s.Run(ctx) }()
	for ob.left() > 0 {
		time.Sleep(time.Millisecond)
	}
	b.StopTimer()
	b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "notifications/s")
}
