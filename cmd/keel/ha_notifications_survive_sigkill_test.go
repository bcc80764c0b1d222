package main

import (
	"slices"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/rabbitmqtest"
)

// A backlog of notifications made while the broker was down (the API
// answering every write meanwhile) is being sent when the leader is
// killed -9: the other replica takes the Lease and sends the rest. Every
// notification arrives, in order per cluster, and at most one twice.
func TestHANotificationsSurviveSIGKILL(t *testing.T) {
	rmq := rabbitmqtest.Start(t)
	tap, listener := startHATap(t, rmq), startHAListener(t, rmq)
	h := newHANotifyCluster(t, rmq, 2)
	haWait(t, time.Minute, "a leader", func() bool { return h.leader() != nil })
	tmpl, _ := h.replicas[0].createTemplate("t-kill")

	rmq.StopApp()
	start := time.Now()
	_, writes := haCreateDelete(t, h, tmpl, "kill-", 32)
	t.Logf("%d writes answered with the broker down in %s", len(writes), time.Since(start).Round(time.Millisecond))
	writes = committed(t, h, writes)
	old := h.leader()
	if old == nil {
		t.Fatal("no leader before the broker's return")
	}
	kill := killOnFirstArrival(old, "kill-", tap, listener)
	restarted := time.Now()
	rmq.StartApp()
	var k haKill
	select {
	case k = <-kill:
	case <-time.After(time.Minute):
		t.Fatal("no notification within a minute of the broker's return")
	}
	<-old.done
	t.Logf("leader %s killed -9 %s after StartApp, at the first arrival (%d of %d by then)",
		old.name, k.at.Sub(restarted).Round(time.Millisecond), k.seen, len(writes))

	got := waitWrites(t, listener, 3*time.Minute, "every write's notification at the listener", "kill-", writes)
	t.Logf("StartApp -> all %d received: %s", len(writes), time.Since(restarted).Round(time.Millisecond))
	checkNotifiedOnce(t, "listener", got, writes)
	checkCreateThenDelete(t, "listener", got, writes)
	checkTakeover(t, h, old, k.at, len(writes), tap, listener)
}

type haKill struct {
	at   time.Time
	seen int
}

// killOnFirstArrival arms a kill -9 of leader at the first notification
// about clusters prefix* to arrive at any of ls. On arrival rather than on
// a poll: the sender drains the backlog at a few notifications a
// millisecond, so a 20 ms poll mostly finds it all sent.
func killOnFirstArrival(leader *replica, prefix string, ls ...*haNotes) <-chan haKill {
	c := make(chan haKill, 1)
	var once sync.Once
	for _, l := range ls {
		l.onArrival(func(n haNote) {
			if len(pendingNamed([]haNote{n}, prefix)) == 0 {
				return
			}
			once.Do(func() {
				_ = leader.cmd.Process.Signal(syscall.SIGKILL)
				c <- haKill{at: time.Now(), seen: len(pendingNamed(uniqueNotes(l.all()), prefix))}
			})
		})
	}
	return c
}

// checkTakeover checks that the old leader sent part of the backlog and
// the new one the rest, with at most one copy too many, and logs the
// failover.
func checkTakeover(t *testing.T, h *haCluster, old *replica, killed time.Time, want int, tap, listener *haNotes) {
	t.Helper()
	haWait(t, time.Minute, "a new leader", func() bool { return h.leader() != nil })
	next := h.leader()
	both := append(tap.all(), listener.all()...)
	slices.SortStableFunc(both, func(a, b haNote) int { return a.at.Compare(b.at) })
	byOld := len(pendingNamed(uniqueNotes(fromPublisher(both, publisherOf(old))), "kill-"))
	if byOld == 0 || byOld >= want {
		t.Errorf("the killed leader sent %d of the %d notifications: the kill did not land while it was sending", byOld, want)
	}
	if first := fromPublisher(both, publisherOf(next)); len(first) > 0 {
		t.Logf("kill -9 -> first notification from the new leader %s: %s (the killed one sent %d of %d)",
			next.name, first[0].at.Sub(killed).Round(time.Millisecond), byOld, want)
	}
	// notify.Sender publishes one notification at a time (to its one
	// topic here) and deletes its row only after the broker's confirm:
	// when the leader dies, at most that one has reached the broker but is
	// still in the outbox, so the new leader sends at most one again.
	// oslo.messaging's listener hides such a copy (it drops a _unique_id
	// among the last 16); the tap shows it.
	for src, l := range map[string]*haNotes{"tap": tap, "listener": listener} {
		raw := l.all()
		dups := duplicated(raw)
		t.Logf("%s: %d received raw, %d distinct, received twice or more: %q", src, len(raw), len(uniqueNotes(raw)), dups)
		if len(dups) > 1 {
			t.Errorf("%s: %d notifications received more than once, want at most 1 (the sender's in-flight window)", src, len(dups))
		}
	}
}

func fromPublisher(ns []haNote, publisher string) []haNote {
	var out []haNote
	for _, n := range ns {
		if n.publisher == publisher {
			out = append(out, n)
		}
	}
	return out
}

// duplicated describes each notification received more than once:
// "event outcome name by publisher,publisher".
func duplicated(ns []haNote) []string {
	var out []string
	by := map[string][]string{}
	for _, n := range ns {
		by[n.id] = append(by[n.id], n.publisher)
	}
	for _, n := range uniqueNotes(ns) {
		if p := by[n.id]; len(p) > 1 {
			out = append(out, n.eventType+" "+n.outcome+" "+n.name+" by "+strings.Join(p, ","))
		}
	}
	return out
}
