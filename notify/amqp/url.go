// Package amqp publishes keel's notifications to RabbitMQ as
// oslo.messaging's rabbit driver does: a topic exchange (the control
// exchange, "magnum"), the routing key <topic>.<priority>, and the queue of
// that name declared and bound (its "default queue", so that notifications
// sent before any consumer subscribed wait for it). Publisher confirms make
// a publish return only once the broker has the message.
package amqp

import (
	"fmt"
	"net/url"
	"strings"
)

// ParseURL turns a notifications URL into the AMQP URLs to try in turn:
// amqp:// and amqps:// as they are, and oslo.messaging's transport_url
// form rabbit://user:pass@host1:5672,user:pass@host2:5672/vhost (with
// ?ssl=1 for TLS), one URL a host.
func ParseURL(raw string) ([]string, error) {
	scheme, rest, ok := strings.Cut(raw, "://")
	switch {
	case !ok:
		return nil, fmt.Errorf("notifications URL %q: want amqp://, amqps:// or rabbit://user:pass@host:port/vhost", redact(raw))
	case scheme == "amqp" || scheme == "amqps":
		if _, err := url.Parse(raw); err != nil {
			return nil, fmt.Errorf("notifications URL %q: %v", redact(raw), err)
		}
		return []string{raw}, nil
	case scheme != "rabbit":
		return nil, fmt.Errorf("notifications URL %q: scheme %q is not amqp, amqps or rabbit", redact(raw), scheme)
	}
	rest, query, _ := strings.Cut(rest, "?")
	hosts, vhost, _ := strings.Cut(rest, "/")
	if q, err := url.ParseQuery(query); err == nil && (q.Get("ssl") == "1" || strings.EqualFold(q.Get("ssl"), "true")) {
		scheme = "amqps"
	} else {
		scheme = "amqp"
	}
	var out []string
	for _, h := range strings.Split(hosts, ",") {
		u := scheme + "://" + h + "/" + vhost
		if _, err := url.Parse(u); err != nil || h == "" {
			return nil, fmt.Errorf("notifications URL %q: host %q is not user:pass@host:port", redact(raw), redactHost(h))
		}
		out = append(out, u)
	}
	return out, nil
}

// redact hides passwords: the URL goes to errors and logs.
func redact(raw string) string {
	scheme, rest, ok := strings.Cut(raw, "://")
	if !ok {
		return "(not a URL)"
	}
	rest, tail, slash := strings.Cut(rest, "/")
	hosts := strings.Split(rest, ",")
	for i, h := range hosts {
		hosts[i] = redactHost(h)
	}
	s := scheme + "://" + strings.Join(hosts, ",")
	if slash {
		s += "/" + tail
	}
	return s
}

func redactHost(h string) string {
	if at := strings.LastIndex(h, "@"); at >= 0 {
		user, _, _ := strings.Cut(h[:at], ":")
		return user + ":xxx@" + h[at+1:]
	}
	return h
}
