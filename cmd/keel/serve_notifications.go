package main

import (
	"fmt"
	"os"

	"github.com/spf13/pflag"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/notify"
	"github.com/openkeel/keel/notify/amqp"
)

// notificationFlags are the flags of Magnum's notifications
// (docs/notifications.md); off unless a URL is given.
func notificationFlags(f *pflag.FlagSet, n *server.NotificationOptions) {
	f.StringVar(&n.URL, "notifications-url", os.Getenv("KEEL_NOTIFICATIONS_URL"), "send Magnum's cluster notifications (CADF over oslo.messaging) to this RabbitMQ: amqp://user:pass@host:port/vhost or oslo's transport_url rabbit://user:pass@host:port[,...]/vhost (default $KEEL_NOTIFICATIONS_URL, which keeps the password out of the process list; empty: off)")
	f.StringVar(&n.Exchange, "notifications-exchange", "magnum", "with --notifications-url: oslo.messaging's control_exchange the notifications go to")
	f.StringSliceVar(&n.Topics, "notifications-topics", []string{"notifications"}, "with --notifications-url: oslo's [oslo_messaging_notifications] topics (routing keys <topic>.info and <topic>.error)")
	f.BoolVar(&n.Durable, "notifications-durable", false, "with --notifications-url: oslo's amqp_durable_queues, as the consumers declare the exchange and queues")
	f.StringVar(&n.Host, "notifications-host", "", "with --notifications-url: the publisher_id is container-infra.<host> (default the hostname, as Magnum's [DEFAULT] host)")
	f.Int64Var(&n.Bound, "notifications-outbox-bound", notify.DefaultBound, "with --notifications-url: unsent notifications kept at most while the broker is unreachable; beyond, the oldest are dropped and counted (keel_notifications_dropped_total)")
}

// notificationOptions checks the flags and sets so.Notifications.
func notificationOptions(n server.NotificationOptions, so *server.Options) error {
	if n.URL == "" {
		return nil
	}
	if _, err := amqp.ParseURL(n.URL); err != nil {
		return fmt.Errorf("--notifications-url: %w", err)
	}
	if n.Bound <= 0 {
		return fmt.Errorf("--notifications-outbox-bound must be positive, not %d", n.Bound)
	}
	if len(n.Topics) == 0 || n.Exchange == "" {
		return fmt.Errorf("--notifications-exchange and --notifications-topics must not be empty")
	}
	so.Notifications = &n
	return nil
}
