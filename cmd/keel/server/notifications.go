package server

import (
	"context"
	"os"

	"github.com/openkeel/keel/notify"
	"github.com/openkeel/keel/notify/amqp"
)

// NotificationOptions turn on Magnum's notifications over oslo.messaging
// on RabbitMQ (docs/notifications.md).
type NotificationOptions struct {
	// URL is amqp://user:pass@host:port/vhost or oslo's transport_url
	// rabbit://user:pass@host:port[,…]/vhost.
	URL string
	// Exchange is oslo's control_exchange (default magnum); Topics its
	// [oslo_messaging_notifications] topics (default notifications).
	Exchange string
	Topics   []string
	// Durable is oslo's amqp_durable_queues, as the consumers have it.
	Durable bool
	// Host makes the publisher_id container-infra.<Host> (default the
	// hostname, as Magnum's [DEFAULT] host).
	Host string
	// Bound is the outbox's bound (default notify.DefaultBound).
	Bound int64
}

// notificationSender is the leader's outbox sender, nil when
// notifications are off.
func (in *Instance) notificationSender(o Options) (func(context.Context) error, error) {
	n := o.Notifications
	if n == nil || n.URL == "" {
		return nil, nil
	}
	urls, err := amqp.ParseURL(n.URL)
	if err != nil {
		return nil, err
	}
	if n.Exchange == "" {
		n.Exchange = "magnum"
	}
	if n.Host == "" {
		n.Host, _ = os.Hostname()
	}
	pub := amqp.New(amqp.Options{URLs: urls, Exchange: n.Exchange, Durable: n.Durable})
	s := &notify.Sender{Outbox: in.DB, Publisher: pub, Host: n.Host, Topics: n.Topics, Bound: n.Bound,
		Log: o.Log.With("component", "notifications")}
	return func(ctx context.Context) error {
		defer pub.Close()
		return s.Run(ctx)
	}, nil
}
