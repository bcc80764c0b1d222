package addons

import (
	"sync"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
)

// PayloadCache keeps rendered payloads by their parameters: an addon whose
// payload depends on a few labels alone (not on the cluster) is rendered
// once per combination, not once per cluster. At most Max are kept; when
// full it starts afresh (a repository has a handful of combinations).
type PayloadCache[P comparable] struct {
	Max int

	mu sync.Mutex
	m  map[P]string
}

// Get returns the payload of p, rendering it with render (then Marshal)
// when it is not kept.
func (c *PayloadCache[P]) Get(p P, render func(P) ([]*unstructured.Unstructured, error)) (string, error) {
	c.mu.Lock()
	s, ok := c.m[p]
	c.mu.Unlock()
	if ok {
		return s, nil
	}
	objs, err := render(p)
	if err != nil {
		return "", err
	}
	b, err := Marshal(objs)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= c.Max {
		c.m = map[P]string{}
	}
	c.m[p] = string(b)
	return string(b), nil
}

// Len is how many payloads are kept.
func (c *PayloadCache[P]) Len() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.m)
}
