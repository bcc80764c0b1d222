package main

import (
	"bufio"
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	amqp091 "github.com/rabbitmq/amqp091-go"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
)

// The HA notification tests read what keel sent twice: through
// oslo.messaging's own listener (the consumer Ceilometer is), and through
// a tap, a queue of the test's own bound as the listener's is. The
// listener drops a repeated _unique_id among the last 16 it acknowledged,
// so a resend next to its original never reaches its output; the tap sees
// every copy the broker routed, so it is the one that counts duplicates.

// haNote is one notification as received.
type haNote struct {
	id, publisher, eventType, outcome, cluster, name, requestID string
	at                                                          time.Time
}

// haNotes are the notifications one consumer received, copies included,
// in arrival order.
type haNotes struct {
	mu  sync.Mutex
	raw []haNote
	// arrived, when set, is called with each notification on arrival.
	arrived func(haNote)
}

// osloFields are the fields of a notification as the listener prints it
// (message_id in metadata, the context in ctxt) or as oslo.messaging's
// envelope carries it.
type osloFields struct {
	MessageID   string `json:"message_id"`
	PublisherID string `json:"publisher_id"`
	EventType   string `json:"event_type"`
	RequestID   string `json:"_context_request_id"`
	Metadata    struct {
		MessageID string `json:"message_id"`
	} `json:"metadata"`
	Ctxt struct {
		RequestID string `json:"request_id"`
	} `json:"ctxt"`
	Payload struct {
		Outcome string `json:"outcome"`
		Target  struct {
			ID   string `json:"id"`
			Name string `json:"name"`
		} `json:"target"`
	} `json:"payload"`
}

func (l *haNotes) add(b []byte) error {
	var f osloFields
	if err := json.Unmarshal(b, &f); err != nil {
		return err
	}
	n := haNote{id: cmp.Or(f.MessageID, f.Metadata.MessageID), publisher: f.PublisherID, eventType: f.EventType,
		outcome: f.Payload.Outcome, cluster: f.Payload.Target.ID, name: f.Payload.Target.Name,
		requestID: cmp.Or(f.RequestID, f.Ctxt.RequestID), at: time.Now()}
	if n.id == "" {
		return fmt.Errorf("no message_id in %s", b)
	}
	l.mu.Lock()
	l.raw = append(l.raw, n)
	arrived := l.arrived
	l.mu.Unlock()
	if arrived != nil {
		arrived(n)
	}
	return nil
}

func (l *haNotes) onArrival(f func(haNote)) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.arrived = f
}

func (l *haNotes) all() []haNote {
	l.mu.Lock()
	defer l.mu.Unlock()
	return append([]haNote(nil), l.raw...)
}

// startHAListener runs server/testdata/oslo_listener.py against rmq.
func startHAListener(t *testing.T, rmq *rabbitmqtest.Server) *haNotes {
	t.Helper()
	stderr := filepath.Join(t.TempDir(), "listener.err")
	errFile, err := os.Create(stderr)
	if err != nil {
		t.Fatal(err)
	}
	defer errFile.Close()
	cmd := exec.Command("/usr/bin/python3", "server/testdata/oslo_listener.py", haRabbitURL(rmq))
	cmd.Stderr = errFile
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatalf("python3 with oslo.messaging (Debian python3-oslo.messaging): %v", err)
	}
	l, ready, done := &haNotes{}, make(chan struct{}), make(chan struct{})
	go func() { defer close(done); l.readLines(t, out, ready) }()
	// The reader ends before the test does: it may report a bad line.
	t.Cleanup(func() { _ = cmd.Process.Kill(); <-done; _ = cmd.Wait() })
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		b, _ := os.ReadFile(stderr)
		t.Fatalf("the oslo.messaging listener did not start: %s", b)
	}
	return l
}

func (l *haNotes) readLines(t *testing.T, out io.Reader, ready chan struct{}) {
	sc := bufio.NewScanner(out)
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if sc.Text() == "READY" {
			close(ready)
		} else if err := l.add(sc.Bytes()); err != nil {
			t.Errorf("listener line %q: %v", sc.Text(), err)
		}
	}
}

// startHATap consumes a queue of its own bound to the magnum exchange as
// the listener's is, connecting again within 20 ms of the broker's return.
func startHATap(t *testing.T, rmq *rabbitmqtest.Server) *haNotes {
	t.Helper()
	l, ctx := &haNotes{}, t.Context()
	up, done := make(chan struct{}), make(chan struct{})
	var once sync.Once
	go func() {
		defer close(done)
		for ctx.Err() == nil {
			l.tap(ctx, t, rmq.URL(), func() { once.Do(func() { close(up) }) })
			time.Sleep(20 * time.Millisecond)
		}
	}()
	t.Cleanup(func() { <-done }) // t.Context is done before cleanups run
	select {
	case <-up:
	case <-time.After(30 * time.Second):
		t.Fatal("the tap did not connect to RabbitMQ")
	}
	return l
}

// tap consumes until the broker closes the connection or ctx ends.
func (l *haNotes) tap(ctx context.Context, t *testing.T, url string, up func()) {
	conn, err := amqp091.Dial(url)
	if err != nil {
		return
	}
	defer conn.Close()
	msgs, err := tapQueue(conn)
	if err != nil {
		return
	}
	up()
	for {
		select {
		case <-ctx.Done():
			return
		case m, ok := <-msgs:
			if !ok {
				return
			}
			var env struct {
				Message string `json:"oslo.message"`
			}
			if err := json.Unmarshal(m.Body, &env); err != nil || l.add([]byte(env.Message)) != nil {
				t.Errorf("tap: not an oslo.messaging 2.0 notification: %s", m.Body)
			}
		}
	}
}

// tapQueue declares an exclusive queue bound to every notifications.*
// routing key of the magnum exchange, which it declares as keel and
// oslo.messaging do (the broker refuses another declaration).
func tapQueue(conn *amqp091.Connection) (<-chan amqp091.Delivery, error) {
	ch, err := conn.Channel()
	if err != nil {
		return nil, err
	}
	if err := ch.ExchangeDeclare("magnum", "topic", false, false, false, false, nil); err != nil {
		return nil, err
	}
	q, err := ch.QueueDeclare("", false, true, true, false, nil)
	if err != nil {
		return nil, err
	}
	if err := ch.QueueBind(q.Name, "notifications.*", "magnum", false, nil); err != nil {
		return nil, err
	}
	return ch.Consume(q.Name, "", true, true, false, false, nil)
}

func haRabbitURL(rmq *rabbitmqtest.Server) string {
	return strings.Replace(rmq.URL(), "amqp://", "rabbit://", 1)
}

// newHANotifyCluster starts n replicas sending notifications to rmq, each
// with its own --notifications-host (as each Magnum conductor has its own
// [DEFAULT] host), so that a notification names the replica that sent it.
func newHANotifyCluster(t *testing.T, rmq *rabbitmqtest.Server, n int) *haCluster {
	t.Helper()
	return newHAClusterWith(t, n, func(name string) []string {
		return []string{"--notifications-url", haRabbitURL(rmq), "--notifications-host", haNotifyHost(name)}
	})
}

func haNotifyHost(replica string) string { return "keel-ha-" + strings.TrimPrefix(replica, "keel-") }

func publisherOf(r *replica) string { return "container-infra." + haNotifyHost(r.name) }

// haWrite is one acknowledged write and the pending notification it
// makes.
type haWrite struct {
	requestID, event, cluster, name string
}

// haCreateDelete creates clusters <prefix>0..n-1 and deletes them: two
// writes and two pending notifications each. Cluster i is created through
// replica i%2 and deleted through the other once that one shows it; ten at
// a time, under Magnum's default quota of 20 clusters a project.
func haCreateDelete(t *testing.T, h *haCluster, tmpl, prefix string, n int) (uuids []string, writes []haWrite) {
	t.Helper()
	for len(uuids) < n {
		first := len(uuids)
		for i := first; i < min(first+10, n); i++ {
			name := fmt.Sprintf("%s%d", prefix, i)
			uuid, rid := h.replicas[i%len(h.replicas)].createCluster(name, tmpl)
			uuids, writes = append(uuids, uuid), append(writes, haWrite{rid, "magnum.cluster.create", uuid, name})
		}
		for i := first; i < len(uuids); i++ {
			rid := haDeleteCluster(t, h.replicas[(i+1)%len(h.replicas)], uuids[i])
			writes = append(writes, haWrite{rid, "magnum.cluster.delete", uuids[i], fmt.Sprintf("%s%d", prefix, i)})
		}
	}
	return uuids, writes
}

// haDeleteCluster deletes a cluster and returns the request's id.
func haDeleteCluster(t *testing.T, r *replica, uuid string) string {
	t.Helper()
	haWait(t, 10*time.Second, r.name+" to show cluster "+uuid, func() bool { return r.has("/v1/clusters/" + uuid) })
	res := r.call(http.MethodDelete, "/v1/clusters/"+uuid, nil)
	if res.status != http.StatusNoContent {
		t.Fatalf("%s: delete cluster %s: %d %s", r.name, uuid, res.status, res.body)
	}
	return res.requestID
}

// committed are the writes that are a commit on the Git server; a write
// acknowledged without one is an error (what is not in Git is not done, and
// is never notified).
func committed(t *testing.T, h *haCluster, writes []haWrite) []haWrite {
	t.Helper()
	ids := h.git.requestIDs()
	var out []haWrite
	for _, w := range writes {
		if ids[w.requestID] == 1 {
			out = append(out, w)
		} else {
			t.Errorf("acknowledged %s of %s (request %s) is %d commits on the Git server, want 1", w.event, w.name, w.requestID, ids[w.requestID])
		}
	}
	return out
}

// --- reading what arrived ---

// uniqueNotes is the first copy of each message_id, in arrival order.
func uniqueNotes(ns []haNote) []haNote {
	seen, out := map[string]bool{}, []haNote{}
	for _, n := range ns {
		if !seen[n.id] {
			seen[n.id] = true
			out = append(out, n)
		}
	}
	return out
}

// pendingNamed are the pending cluster notifications (one a write) about
// the clusters named prefix*.
func pendingNamed(ns []haNote, prefix string) []haNote {
	var out []haNote
	for _, n := range ns {
		if n.outcome == "pending" && strings.HasPrefix(n.eventType, "magnum.cluster.") && strings.HasPrefix(n.name, prefix) {
			out = append(out, n)
		}
	}
	return out
}

// waitWrites waits until l received the pending notification of every
// write, and returns the pending notifications about clusters prefix*
// (deduplicated, in arrival order).
func waitWrites(t *testing.T, l *haNotes, d time.Duration, what, prefix string, writes []haWrite) []haNote {
	t.Helper()
	var got []haNote
	haWait(t, d, what, func() bool {
		got = pendingNamed(uniqueNotes(l.all()), prefix)
		seen := map[string]bool{}
		for _, n := range got {
			seen[n.requestID] = true
		}
		for _, w := range writes {
			if !seen[w.requestID] {
				return false
			}
		}
		return true
	})
	return got
}

// checkNotifiedOnce checks that each write is one notification (one
// message_id) among ns, about its cluster: a commit projected twice would
// be two.
func checkNotifiedOnce(t *testing.T, src string, ns []haNote, writes []haWrite) {
	t.Helper()
	byRequest := map[string][]haNote{}
	for _, n := range ns {
		byRequest[n.requestID] = append(byRequest[n.requestID], n)
	}
	for _, w := range writes {
		got := byRequest[w.requestID]
		if len(got) != 1 || got[0].eventType != w.event || got[0].cluster != w.cluster {
			t.Errorf("%s: %s of %s (request %s): notified as %s, want once", src, w.event, w.name, w.requestID, summary(got))
		}
	}
}

// summary is "event_type target-name message_id" a notification.
func summary(ns []haNote) []string {
	out := make([]string, len(ns))
	for i, n := range ns {
		out[i] = n.eventType + " " + n.name + " " + n.id
	}
	return out
}

// checkCreateThenDelete checks that each cluster's create was received
// before its delete (first copies, in arrival order).
func checkCreateThenDelete(t *testing.T, src string, ns []haNote, writes []haWrite) {
	t.Helper()
	pos := map[string]int{}
	for i, n := range ns {
		pos[n.requestID] = i
	}
	create := map[string]haWrite{}
	for _, w := range writes {
		if w.event == "magnum.cluster.create" {
			create[w.cluster] = w
		}
	}
	for _, w := range writes {
		c, ok := create[w.cluster]
		if w.event != "magnum.cluster.delete" || !ok {
			continue
		}
		pc, okc := pos[c.requestID]
		pd, okd := pos[w.requestID]
		if okc && okd && pc > pd {
			t.Errorf("%s: %s: its delete was received before its create", src, w.name)
		}
	}
}

// copies counts the copies received of each message_id.
func copies(ns []haNote) map[string]int {
	c := map[string]int{}
	for _, n := range ns {
		c[n.id]++
	}
	return c
}
