// Package memo keeps computed values by key, bounded. The compiler's and
// the schema's memos serve a handful of keys (label sets, payload texts);
// the bound only keeps a long-running server's memory flat whatever it is
// sent. When full it starts afresh, which costs one recomputation per key
// still in use, not correctness.
package memo

import "sync"

// Map is a bounded memo; its zero value (Max 0) keeps one entry. Safe for
// concurrent use.
type Map[K comparable, V any] struct {
	Max int

	mu sync.Mutex
	m  map[K]V
}

// Get returns the value kept for k.
func (c *Map[K, V]) Get(k K) (V, bool) {
	c.mu.Lock()
	defer c.mu.Unlock()
	v, ok := c.m[k]
	return v, ok
}

// Put keeps v for k.
func (c *Map[K, V]) Put(k K, v V) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= max(c.Max, 1) {
		c.m = map[K]V{}
	}
	c.m[k] = v
}

// Len is how many values are kept.
func (c *Map[K, V]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
