package server

import (
	"bufio"
	"encoding/json"
	"os/exec"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
)

// received is one notification as oslo.messaging's listener hands it to
// its endpoint.
type received struct {
	Priority    string         `json:"priority"`
	PublisherID string         `json:"publisher_id"`
	EventType   string         `json:"event_type"`
	Payload     map[string]any `json:"payload"`
	Metadata    map[string]any `json:"metadata"`
	Ctxt        map[string]any `json:"ctxt"`
	// ReceivedAt is when the listener got it (Unix seconds).
	ReceivedAt float64 `json:"received_at"`
}

// delay is from the change the notification reports (its CADF eventTime)
// to the listener.
func (r *received) delay() (time.Duration, error) {
	at, err := time.Parse("2006-01-02T15:04:05.000000-0700", strOf(r.Payload["eventTime"]))
	if err != nil {
		return 0, err
	}
	return time.Unix(0, int64(r.ReceivedAt*1e9)).Sub(at), nil
}

func (r *received) messageID() string { s, _ := r.Metadata["message_id"].(string); return s }
func (r *received) outcome() string   { s, _ := r.Payload["outcome"].(string); return s }
func (r *received) target() map[string]any {
	m, _ := r.Payload["target"].(map[string]any)
	return m
}

// osloListener is testdata/oslo_listener.py (oslo.messaging's
// get_notification_listener on exchange magnum, topic notifications)
// running against a broker.
type osloListener struct {
	mu  sync.Mutex
	got []received
}

func startOsloListener(t *testing.T, rmq *rabbitmqtest.Server) *osloListener {
	t.Helper()
	cmd := exec.Command("/usr/bin/python3", "testdata/oslo_listener.py", strings.Replace(rmq.URL(), "amqp://", "rabbit://", 1))
	out, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	if err := cmd.Start(); err != nil {
		t.Fatalf("python3 with oslo.messaging (Debian python3-oslo.messaging): %v", err)
	}
	t.Cleanup(func() { _ = cmd.Process.Kill(); _ = cmd.Wait() })
	l, ready := &osloListener{}, make(chan struct{})
	go l.read(t, bufio.NewScanner(out), ready)
	select {
	case <-ready:
	case <-time.After(60 * time.Second):
		t.Fatalf("the oslo.messaging listener did not start: %s", stderr.String())
	}
	return l
}

func (l *osloListener) read(t *testing.T, sc *bufio.Scanner, ready chan struct{}) {
	sc.Buffer(make([]byte, 1<<20), 1<<20)
	for sc.Scan() {
		if sc.Text() == "READY" {
			close(ready)
			continue
		}
		var r received
		if err := json.Unmarshal(sc.Bytes(), &r); err != nil {
			t.Errorf("listener line %q: %v", sc.Text(), err)
			continue
		}
		l.mu.Lock()
		l.got = append(l.got, r)
		l.mu.Unlock()
	}
}

// waitFor polls until the deduplicated notifications (first of each
// message_id, in arrival order) satisfy done, or fails after a minute.
func (l *osloListener) waitFor(t *testing.T, what string, done func([]received) bool) []received {
	t.Helper()
	for deadline := time.Now().Add(time.Minute); ; time.Sleep(100 * time.Millisecond) {
		got := l.unique()
		if done(got) {
			return got
		}
		if time.Now().After(deadline) {
			t.Fatalf("waiting for %s; received %d: %s", what, len(got), summary(got))
		}
	}
}

func (l *osloListener) unique() []received {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.uniqueLocked()
}

func (l *osloListener) uniqueLocked() []received {
	seen, out := map[string]bool{}, []received{}
	for _, r := range l.got {
		if !seen[r.messageID()] {
			seen[r.messageID()] = true
			out = append(out, r)
		}
	}
	return out
}

// duplicates counts the notifications received more than once.
func (l *osloListener) duplicates() int {
	l.mu.Lock()
	defer l.mu.Unlock()
	return len(l.got) - len(l.uniqueLocked())
}

// summary is "event_type outcome cluster-name" a notification.
func summary(rs []received) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = r.EventType + " " + r.outcome() + " " + strOf(r.target()["name"])
	}
	return out
}

func strOf(v any) string { s, _ := v.(string); return s }
