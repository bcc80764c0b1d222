package reconciler

import (
	"context"
	"sync"
	"testing"
	"time"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/tools/record"
)

// Changed folders are applied Workers at a time: a folder whose apply is
// slow does not hold up the changes behind it. Each apply here ends by
// emitting its Event, which waits until another apply emits one too (or a
// few seconds pass): one at a time, no two ever meet.
func TestFoldersAppliedAtOnce(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.write(f.cluster("first", 1)) // its ClusterClass, applied alone
	f.rec.Sync(ctx)
	meet := &meetingRecorder{want: 2, wait: 5 * time.Second}
	rec, err := New(f.store, env.Client, f.sink, Options{RetryMin: 50 * time.Millisecond, RetryMax: 200 * time.Millisecond, Recorder: meet})
	if err != nil {
		t.Fatal(err)
	}
	rec.Sync(ctx) // the start-up state: nothing changed since
	for _, name := range []string{"a", "b"} {
		f.write(f.cluster(name, 1))
	}
	rec.Sync(ctx)
	if got := meet.maxInFlight(); got < 2 {
		t.Errorf("two changed folders: at most %d applied at once, want 2", got)
	}
}

// meetingRecorder's Event blocks until want Events are in flight at once,
// or wait passes, and remembers the most it saw.
type meetingRecorder struct {
	record.EventRecorder // only Event is used
	want                 int
	wait                 time.Duration
	mu                   sync.Mutex
	inFlight, most       int
	met                  chan struct{}
}

func (m *meetingRecorder) Event(runtime.Object, string, string, string) {
	m.mu.Lock()
	if m.met == nil {
		m.met = make(chan struct{})
	}
	m.inFlight++
	m.most = max(m.most, m.inFlight)
	met := m.met
	if m.inFlight == m.want {
		close(met)
	}
	m.mu.Unlock()
	select {
	case <-met:
	case <-time.After(m.wait):
	}
	m.mu.Lock()
	m.inFlight--
	m.mu.Unlock()
}

func (m *meetingRecorder) maxInFlight() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.most
}
