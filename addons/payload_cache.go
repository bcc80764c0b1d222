package addons

import (
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/internal/memo"
)

// PayloadCache keeps rendered payloads by their parameters: an addon whose
// payload depends on a few labels alone (not on the cluster) is rendered
// once per combination, not once per cluster.
type PayloadCache[P comparable] struct {
	m memo.Map[P, string]
}

// NewPayloadCache keeps at most max payloads.
func NewPayloadCache[P comparable](max int) *PayloadCache[P] {
	return &PayloadCache[P]{m: memo.Map[P, string]{Max: max}}
}

// Get returns the payload of p, rendering it with render (then Marshal)
// when it is not kept.
func (c *PayloadCache[P]) Get(p P, render func(P) ([]*unstructured.Unstructured, error)) (string, error) {
	if s, ok := c.m.Get(p); ok {
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
	// The one string kept is the one returned, every time: callers that
	// keep something by the payload's text (the compiler's literal blocks)
	// then compare it by its pointer, not byte by byte.
	payload := string(b)
	c.m.Put(p, payload)
	return payload, nil
}

// Len is how many payloads are kept.
func (c *PayloadCache[P]) Len() int { return c.m.Len() }
