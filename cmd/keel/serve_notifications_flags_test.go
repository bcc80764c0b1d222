package main

import (
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/openkeel/keel/cmd/keel/server"
)

// Notifications are off without --notifications-url (or
// KEEL_NOTIFICATIONS_URL); with it the flags reach server.Options with
// Magnum's defaults, and a bad URL or bound is refused.
func TestServeNotificationFlags(t *testing.T) {
	parse := func(args ...string) (*server.Options, error) {
		var n server.NotificationOptions
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		notificationFlags(f, &n)
		if err := f.Parse(args); err != nil {
			t.Fatal(err)
		}
		so := &server.Options{}
		return so, notificationOptions(n, so)
	}
	if so, err := parse(); err != nil || so.Notifications != nil {
		t.Fatalf("off by default: %+v %v", so.Notifications, err)
	}
	so, err := parse("--notifications-url", "rabbit://u:p@mq:5672/", "--notifications-topics", "notifications,billing")
	if err != nil {
		t.Fatal(err)
	}
	n := so.Notifications
	if n == nil || n.Exchange != "magnum" || strings.Join(n.Topics, ",") != "notifications,billing" || n.Bound != 100000 || n.Durable {
		t.Fatalf("options = %+v", n)
	}
	t.Setenv("KEEL_NOTIFICATIONS_URL", "amqp://u:p@mq:5672/")
	if so, err := parse(); err != nil || so.Notifications == nil || so.Notifications.URL != "amqp://u:p@mq:5672/" {
		t.Fatalf("from the environment: %+v %v", so.Notifications, err)
	}
	for _, bad := range [][]string{{"--notifications-url", "http://mq/"}, {"--notifications-url", "amqp://mq/", "--notifications-outbox-bound", "0"}} {
		if _, err := parse(bad...); err == nil {
			t.Errorf("%v: accepted", bad)
		}
	}
}
