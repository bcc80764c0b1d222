package reconciler

import "sync"

// lockedMap is a map the reconciler's workers share (process applies
// several folders at once): each folder's entries are its own, but Go maps
// may not be written concurrently even under different keys.
type lockedMap[K comparable, V any] struct {
	mu sync.Mutex
	m  map[K]V
}

func newLockedMap[K comparable, V any]() *lockedMap[K, V] {
	return &lockedMap[K, V]{m: map[K]V{}}
}

func (l *lockedMap[K, V]) get(k K) V {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.m[k]
}

func (l *lockedMap[K, V]) set(k K, v V) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.m[k] = v
}

func (l *lockedMap[K, V]) delete(k K) {
	l.mu.Lock()
	defer l.mu.Unlock()
	delete(l.m, k)
}

// update sets k to f of its value and returns the new value.
func (l *lockedMap[K, V]) update(k K, f func(V) V) V {
	l.mu.Lock()
	defer l.mu.Unlock()
	v := f(l.m[k])
	l.m[k] = v
	return v
}
