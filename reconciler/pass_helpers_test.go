package reconciler

import (
	"context"
	"sync"
	"testing"
	"time"

	"github.com/openkeel/keel/intent"
)

// gateSink holds the read model's record of one cluster until the gate
// opens: the worker applying it stays busy.
type gateSink struct {
	Sink
	uuid    string
	gate    chan struct{}
	entered chan struct{}
	once    sync.Once
	opened  sync.Once
}

// open lets the held record, and every later one, through.
func (s *gateSink) open() { s.opened.Do(func() { close(s.gate) }) }

func newGateSink(s Sink, uuid string) *gateSink {
	return &gateSink{Sink: s, uuid: uuid, gate: make(chan struct{}), entered: make(chan struct{})}
}

func (s *gateSink) Applied(ctx context.Context, uuid, rev string, gen int64, err error) {
	if uuid == s.uuid {
		s.once.Do(func() { close(s.entered) })
		<-s.gate
	}
	s.Sink.Applied(ctx, uuid, rev, gen, err)
}

// waitFor polls cond for up to 20 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	for deadline := time.Now().Add(20 * time.Second); !cond(); time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%s: not within 20 s", what)
		}
	}
}

// appliedRevision is the revision the sink recorded for a cluster.
func (s *recordingSink) appliedRevision(uuid string) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.applied[uuid]
}

// folderRevision is a folder's tree hash at HEAD: the revision its apply
// records.
func (f *fixture) folderRevision(dir string) string {
	f.t.Helper()
	sn, err := f.store.SnapshotHead()
	if err != nil {
		f.t.Fatal(err)
	}
	h, err := sn.Hash(dir)
	if err != nil {
		f.t.Fatal(err)
	}
	return h.String()
}

// received waits up to 20 s for ch to close.
func received(t *testing.T, ch <-chan struct{}, what string) {
	t.Helper()
	select {
	case <-ch:
	case <-time.After(20 * time.Second):
		t.Fatalf("%s: not within 20 s", what)
	}
}

// heldPass resizes held and starts a pass that applies it, in a goroutine:
// the pass holds in the read model's record of held until the gate opens,
// and passDone closes when it ends. The reconciler follows the store's
// commits as Run does.
func (f *fixture) heldPass(t *testing.T, held *intent.ClusterState) (gate *gateSink, passDone chan struct{}) {
	t.Helper()
	gate = newGateSink(f.sink, held.Cluster.UUID)
	t.Cleanup(gate.open)
	f.rec.sink = gate
	f.rec.notify = f.store.Subscribe()
	held.NodeGroups[1].NodeCount = 2
	f.write(held)
	passDone = make(chan struct{})
	go func() { f.rec.Sync(context.Background()); close(passDone) }()
	received(t, gate.entered, "the pass applies the held folder")
	return gate, passDone
}
