package main

import (
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
)

// Two replicas share one read model and its outbox, and both answer
// writes (cluster creates and deletes, alternating between them): while
// none dies, each write is one notification, received exactly once, sent
// by the leader alone (the follower runs no sender, and a commit projected
// by both replicas is notified once).
func TestHANotificationsSentOnceByTwoReplicas(t *testing.T) {
	rmq := rabbitmqtest.Start(t)
	tap, listener := startHATap(t, rmq), startHAListener(t, rmq)
	h := newHANotifyCluster(t, rmq, 2)
	haWait(t, time.Minute, "a leader", func() bool { return h.leader() != nil })
	leader := h.leader()
	tmpl, _ := h.replicas[1].createTemplate("t-once")
	start := time.Now()
	_, writes := haCreateDelete(t, h, tmpl, "once-", 6)
	writes = committed(t, h, writes)
	waitWrites(t, listener, 2*time.Minute, "every write's notification at the listener", "once-", writes)
	waitWrites(t, tap, time.Minute, "every write's notification at the tap", "once-", writes)
	t.Logf("%d writes through both replicas, all notified in %s", len(writes), time.Since(start).Round(time.Millisecond))
	// A second sender, or a write notified twice, would show within the
	// sender's 200 ms poll.
	time.Sleep(3 * time.Second)
	checkSentOnce(t, "listener", listener.all(), writes, publisherOf(leader))
	checkSentOnce(t, "tap", tap.all(), writes, publisherOf(leader))
	if h.leader() != leader {
		t.Errorf("the leader changed while no replica died")
	}
}

// checkSentOnce checks that every copy in raw came from publisher, that no
// message_id came twice, and that each write is one notification.
func checkSentOnce(t *testing.T, src string, raw []haNote, writes []haWrite, publisher string) {
	t.Helper()
	for id, n := range copies(raw) {
		if n != 1 {
			t.Errorf("%s: message %s received %d times, want once", src, id, n)
		}
	}
	for _, n := range raw {
		if n.publisher != publisher {
			t.Errorf("%s: %s %s of %s sent by %s, want only the leader %s", src, n.eventType, n.outcome, n.name, n.publisher, publisher)
		}
	}
	pending := pendingNamed(uniqueNotes(raw), "once-")
	checkNotifiedOnce(t, src, pending, writes)
	checkCreateThenDelete(t, src, pending, writes)
	t.Logf("%s: %d notifications received (the writes' and the settled statuses'), %d distinct", src, len(raw), len(uniqueNotes(raw)))
}
