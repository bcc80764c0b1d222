package clusterapi

import (
	"context"
	"sync"
	"time"

	"k8s.io/apimachinery/pkg/runtime/schema"
)

// contractCacheTTL is how long a kind's contract apiVersion is reused. The
// conversion webhooks ask for it at every object they convert: uncached,
// that was a GET of a CRD per watch event of every client reading an older
// version, about 19 a second with 100 clusters (docs/performance.md). A
// provider upgrade that changes the label is seen within this time.
const contractCacheTTL = time.Minute

// contractCache remembers apiVersionFromContract's answers per GroupKind.
type contractCache struct {
	get func(context.Context, schema.GroupKind) (string, error)
	now func() time.Time

	mu      sync.Mutex
	entries map[schema.GroupKind]contractEntry
}

type contractEntry struct {
	version string
	at      time.Time
}

func newContractCache(get func(context.Context, schema.GroupKind) (string, error)) *contractCache {
	return &contractCache{get: get, now: time.Now, entries: map[schema.GroupKind]contractEntry{}}
}

// APIVersion answers from the cache when its entry is fresh; errors are
// not cached, so a missing CRD is asked for again.
func (c *contractCache) APIVersion(ctx context.Context, gk schema.GroupKind) (string, error) {
	c.mu.Lock()
	e, ok := c.entries[gk]
	c.mu.Unlock()
	if ok && c.now().Sub(e.at) < contractCacheTTL {
		return e.version, nil
	}
	v, err := c.get(ctx, gk)
	if err != nil {
		return "", err
	}
	c.mu.Lock()
	c.entries[gk] = contractEntry{version: v, at: c.now()}
	c.mu.Unlock()
	return v, nil
}
