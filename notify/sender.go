// Package notify sends the read model's notification outbox to the
// message bus (docs/notifications.md): in order, at least once, each row
// deleted only once the broker confirmed it. Only the leader runs a
// Sender; a slow or absent broker delays notifications, never the API.
package notify

import (
	"context"
	"log/slog"
	"time"

	"github.com/openkeel/keel/notify/oslo"
	"github.com/openkeel/keel/readmodel"
)

// Outbox is the read model's notification outbox.
type Outbox interface {
	Notifications(ctx context.Context, limit int) ([]readmodel.Notification, error)
	NotificationSent(ctx context.Context, seq int64) error
	NotificationBacklog(ctx context.Context) (int64, error)
	TrimNotifications(ctx context.Context, max int64) (int64, error)
}

// Publisher publishes one message and returns once the broker has it.
type Publisher interface {
	Publish(ctx context.Context, routingKey string, body []byte) error
}

// DefaultBound is the outbox's default bound (docs/notifications.md): a
// row is about 2 KB, so at most some 200 MB wait for a broker.
const DefaultBound = 100000

// Sender drains the outbox into a Publisher.
type Sender struct {
	Outbox    Outbox
	Publisher Publisher
	// Publisher is container-infra.<Host> (Magnum's [DEFAULT] host).
	Host string
	// Topics are oslo's [oslo_messaging_notifications] topics; each
	// notification goes to every one.
	Topics []string
	// Bound is how many unsent notifications the outbox keeps at most
	// (DefaultBound when 0); beyond it the oldest are dropped and counted.
	Bound int64
	// Poll is how often the outbox is read when idle (default 200 ms):
	// the delay from a status change to its notification.
	Poll time.Duration
	Log  *slog.Logger
}

// maxRetryPause caps the pause between attempts while the broker is
// unreachable: an attempt costs one connection try, and a broker back from
// an outage gets the backlog within seconds.
const maxRetryPause = 5 * time.Second

// Run sends until ctx ends. A publish error is retried with a growing
// pause (up to maxRetryPause), from the same notification, so order is
// kept.
func (s *Sender) Run(ctx context.Context) error {
	s.defaults()
	wait, failing := s.Poll, false
	for {
		err := s.drain(ctx)
		switch {
		case err != nil && ctx.Err() == nil:
			metricErrors.Inc()
			if !failing {
				s.Log.Error("notifications: sending failed; retrying, nothing is lost (the outbox keeps them)", "err", err)
			}
			failing, wait = true, min(2*wait+time.Second, maxRetryPause)
		case err == nil:
			if failing {
				s.Log.Info("notifications: sending again")
			}
			failing, wait = false, s.Poll
		}
		select {
		case <-ctx.Done():
			return nil
		case <-time.After(wait):
		}
	}
}

func (s *Sender) defaults() {
	if s.Bound <= 0 {
		s.Bound = DefaultBound
	}
	if s.Poll <= 0 {
		s.Poll = 200 * time.Millisecond
	}
	if len(s.Topics) == 0 {
		s.Topics = []string{"notifications"}
	}
	if s.Log == nil {
		s.Log = slog.Default()
	}
}

// drain sends everything in the outbox, oldest first.
func (s *Sender) drain(ctx context.Context) error {
	if err := s.trim(ctx); err != nil {
		return err
	}
	for {
		batch, err := s.Outbox.Notifications(ctx, 100)
		if err != nil || len(batch) == 0 {
			return err
		}
		for i := range batch {
			if err := s.send(ctx, &batch[i]); err != nil {
				return err
			}
		}
	}
}

// send publishes one notification to every topic, then removes it. A
// crash in between sends it again: consumers deduplicate by message_id.
func (s *Sender) send(ctx context.Context, n *readmodel.Notification) error {
	body, err := oslo.Render(&n.Event, oslo.Publisher{Host: s.Host})
	if err != nil {
		return err
	}
	for _, topic := range s.Topics {
		if err := s.Publisher.Publish(ctx, n.Event.RoutingKey(topic), body); err != nil {
			return err
		}
	}
	if err := s.Outbox.NotificationSent(ctx, n.Seq); err != nil {
		return err
	}
	metricSent.WithLabelValues(n.Event.EventType(), n.Event.Outcome).Inc()
	metricDelay.Observe(time.Since(n.Event.Time).Seconds())
	metricBacklog.Dec()
	return nil
}

// trim enforces the bound and refreshes the backlog gauge.
func (s *Sender) trim(ctx context.Context) error {
	dropped, err := s.Outbox.TrimNotifications(ctx, s.Bound)
	if err != nil {
		return err
	}
	if dropped > 0 {
		metricDropped.Add(float64(dropped))
		s.Log.Error("notifications: the outbox is full; the oldest were dropped", "dropped", dropped, "bound", s.Bound)
	}
	n, err := s.Outbox.NotificationBacklog(ctx)
	if err != nil {
		return err
	}
	metricBacklog.Set(float64(n))
	return nil
}
