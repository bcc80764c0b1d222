package notify_test

import (
	"context"
	"crypto/sha256"
	"errors"
	"fmt"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/openkeel/keel/notify"
	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/readmodel"
)

// fakeOutbox is an in-memory stand-in for the read model's outbox (a fake:
// the read model's own tests prove the real one; this one lets the test
// see exactly what the sender removes, and when).
type fakeOutbox struct {
	mu   sync.Mutex
	rows []readmodel.Notification
}

func (o *fakeOutbox) Notifications(_ context.Context, limit int) ([]readmodel.Notification, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return append([]readmodel.Notification(nil), o.rows[:min(limit, len(o.rows))]...), nil
}

func (o *fakeOutbox) NotificationSent(_ context.Context, seq int64) error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for i, r := range o.rows {
		if r.Seq == seq {
			o.rows = append(o.rows[:i], o.rows[i+1:]...)
			return nil
		}
	}
	return fmt.Errorf("seq %d: not in the outbox", seq)
}

func (o *fakeOutbox) NotificationBacklog(context.Context) (int64, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	return int64(len(o.rows)), nil
}

func (o *fakeOutbox) TrimNotifications(context.Context, int64) (int64, error) { return 0, nil }

func (o *fakeOutbox) left() int {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.rows)
}

// flakyBroker refuses the 3rd and the 8th publish: a broker that drops the
// connection now and then (the second topic of one notification, the
// first of another).
type flakyBroker struct {
	mu       sync.Mutex
	calls    int
	accepted []string // routing key and message id, in order
}

func (b *flakyBroker) Publish(_ context.Context, key string, body []byte) error {
	b.mu.Lock()
	defer b.mu.Unlock()
	b.calls++
	if b.calls == 3 || b.calls == 8 {
		return errors.New("connection reset by the broker")
	}
	b.accepted = append(b.accepted, fmt.Sprintf("%s %x", key, sha256.Sum256(body)))
	return nil
}

// A publish that fails is retried from the same notification: every
// notification reaches every topic, in outbox order, and leaves the
// outbox only once the broker took it.
func TestSenderRetriesInOrder(t *testing.T) {
	ob := &fakeOutbox{}
	for i := range 5 {
		outcome := oslo.OutcomePending
		if i == 3 {
			outcome = oslo.OutcomeFailure // an ERROR-priority one in the middle
		}
		ob.rows = append(ob.rows, readmodel.Notification{Seq: int64(i + 1), Event: oslo.Event{
			MessageID: fmt.Sprintf("00000000-0000-4000-8000-00000000000%d", i), Action: oslo.ActionCreate,
			Outcome: outcome, Time: time.Unix(0, 0), ClusterUUID: fmt.Sprint(i)}})
	}
	want := make([]string, 0, 10)
	for _, r := range ob.rows {
		body, _ := oslo.Render(&r.Event, oslo.Publisher{Host: "h"})
		for _, topic := range []string{"notifications", "billing"} {
			want = append(want, fmt.Sprintf("%s %x", r.Event.RoutingKey(topic), sha256.Sum256(body)))
		}
	}
	b := &flakyBroker{}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	s := &notify.Sender{Outbox: ob, Publisher: b, Host: "h", Topics: []string{"notifications", "billing"}, Poll: time.Millisecond}
	done := make(chan error, 1)
	go func() { done <- s.Run(ctx) }()
	for deadline := time.Now().Add(30 * time.Second); ob.left() > 0; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d notifications still in the outbox", ob.left())
		}
	}
	cancel()
	if err := <-done; err != nil {
		t.Fatal(err)
	}
	b.mu.Lock()
	defer b.mu.Unlock()
	if !reflect.DeepEqual(dedupe(b.accepted), want) {
		t.Fatalf("published:\n%q\nwant, once each after removing the repeats of a retried notification:\n%q", b.accepted, want)
	}
}

// dedupe keeps the first publish of each message to each topic: a
// notification whose second topic failed is sent to the first again (at
// least once; consumers deduplicate by message_id).
func dedupe(got []string) []string {
	seen, out := map[string]bool{}, []string{}
	for _, g := range got {
		if !seen[g] {
			seen[g] = true
			out = append(out, g)
		}
	}
	return out
}
