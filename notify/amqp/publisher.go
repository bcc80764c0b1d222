package amqp

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"
)

// Options configure a Publisher.
type Options struct {
	// URLs are tried in turn on each connection (ParseURL).
	URLs []string
	// Exchange is oslo.messaging's control_exchange: "magnum" for Magnum.
	Exchange string
	// Durable is oslo.messaging's amqp_durable_queues (default false): the
	// exchange and the default queues must be declared as the consumers
	// declare them, or the broker refuses the second declaration.
	Durable bool
	// Timeout bounds a connection attempt and a confirm (default 10 s).
	Timeout time.Duration
}

// Publisher publishes on one connection, opened on first use and again
// after any error. It is not for concurrent use by design: one sender
// publishes in order.
type Publisher struct {
	o        Options
	mu       sync.Mutex
	conn     *amqp091.Connection
	ch       *amqp091.Channel
	declared map[string]bool
}

// New returns a Publisher; it connects on the first Publish.
func New(o Options) *Publisher {
	if o.Timeout <= 0 {
		o.Timeout = 10 * time.Second
	}
	return &Publisher{o: o}
}

// Publish sends body with routing key key and returns once the broker
// confirmed it (an error otherwise, after which the connection is reset).
func (p *Publisher) Publish(ctx context.Context, key string, body []byte) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if err := p.publish(ctx, key, body); err != nil {
		p.reset()
		return err
	}
	return nil
}

func (p *Publisher) publish(ctx context.Context, key string, body []byte) error {
	if err := p.connect(); err != nil {
		return err
	}
	if err := p.declareQueue(key); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(ctx, p.o.Timeout)
	defer cancel()
	// As kombu's JSON serializer sends it; persistent, so that a durable
	// queue keeps it across a broker restart.
	msg := amqp091.Publishing{ContentType: "application/json", ContentEncoding: "utf-8", DeliveryMode: amqp091.Persistent, Body: body}
	dc, err := p.ch.PublishWithDeferredConfirmWithContext(ctx, p.o.Exchange, key, false, false, msg)
	if err != nil {
		return fmt.Errorf("publishing to %s: %w", p.o.Exchange, err)
	}
	ok, err := dc.WaitContext(ctx)
	if err != nil {
		return fmt.Errorf("waiting for the broker's confirm: %w", err)
	}
	if !ok {
		return errors.New("the broker refused the message (nack)")
	}
	return nil
}

// connect opens the connection and a confirming channel and declares the
// exchange, as the rabbit driver's notify_send does (type topic, not
// auto-deleted).
func (p *Publisher) connect() error {
	if p.ch != nil && !p.ch.IsClosed() {
		return nil
	}
	p.reset()
	var errs []error
	for _, u := range p.o.URLs {
		conn, err := amqp091.DialConfig(u, amqp091.Config{Dial: amqp091.DefaultDial(p.o.Timeout), Heartbeat: 10 * time.Second,
			Properties: amqp091.Table{"connection_name": "keel notifications"}})
		if err != nil {
			errs = append(errs, fmt.Errorf("%s: %w", redact(u), err))
			continue
		}
		p.conn = conn
		return p.open()
	}
	return fmt.Errorf("connecting to the notifications broker: %w", errors.Join(errs...))
}

func (p *Publisher) open() error {
	ch, err := p.conn.Channel()
	if err != nil {
		return err
	}
	if err := ch.Confirm(false); err != nil {
		return err
	}
	if err := ch.ExchangeDeclare(p.o.Exchange, "topic", p.o.Durable, false, false, false, nil); err != nil {
		return fmt.Errorf("declaring exchange %s: %w", p.o.Exchange, err)
	}
	p.ch, p.declared = ch, map[string]bool{}
	return nil
}

// declareQueue declares the queue named key bound to the exchange with
// key, once a connection: the rabbit driver's default queue.
func (p *Publisher) declareQueue(key string) error {
	if p.declared[key] {
		return nil
	}
	if _, err := p.ch.QueueDeclare(key, p.o.Durable, false, false, false, nil); err != nil {
		return fmt.Errorf("declaring queue %s: %w", key, err)
	}
	if err := p.ch.QueueBind(key, key, p.o.Exchange, false, nil); err != nil {
		return fmt.Errorf("binding queue %s: %w", key, err)
	}
	p.declared[key] = true
	return nil
}

func (p *Publisher) reset() {
	if p.conn != nil {
		p.conn.Close()
	}
	p.conn, p.ch = nil, nil
}

// Close closes the connection.
func (p *Publisher) Close() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	p.reset()
	return nil
}
