package gitstore

import (
	"sync"
	"time"

	"github.com/go-git/go-git/v5/plumbing"
)

// writtenTimes remembers when this process wrote each of its latest commits,
// or found them on its remote: where the delay from a change to its apply
// starts (the reconciler's keel_change_applied_seconds). A commit's own
// time cannot tell it: it is to the second, and set by whoever made it.
type writtenTimes struct {
	mu    sync.Mutex
	at    map[plumbing.Hash]time.Time
	order []plumbing.Hash // oldest first: the first to forget
}

// maxWrittenTimes bounds the record: far more commits than a reconciler
// ever finds between two of its passes.
const maxWrittenTimes = 4096

func (w *writtenTimes) add(h plumbing.Hash, t time.Time) {
	w.mu.Lock()
	defer w.mu.Unlock()
	if w.at == nil {
		w.at = map[plumbing.Hash]time.Time{}
	}
	if _, ok := w.at[h]; ok {
		return
	}
	if len(w.order) == maxWrittenTimes {
		delete(w.at, w.order[0])
		w.order = w.order[1:]
	}
	w.at[h] = t
	w.order = append(w.order, h)
}

// WrittenAt is when this process wrote the commit h or found it on its
// remote (ok false for a commit it did not, or has forgotten). Of several
// commits fetched at once only the newest is recorded.
func (s *Store) WrittenAt(h plumbing.Hash) (t time.Time, ok bool) {
	s.written.mu.Lock()
	defer s.written.mu.Unlock()
	t, ok = s.written.at[h]
	return t, ok
}
