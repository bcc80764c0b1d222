package compiler

import (
	"maps"
	"regexp"
	"strings"

	"github.com/openkeel/keel/internal/memo"
)

// uuidPayloadCache memoizes addon payloads that depend on the cluster only
// through its UUID, taken as an opaque string (OCCM's --cluster-name, the
// CSI drivers' cluster ID): rendering the charts is most of a compile, and
// every cluster with the same labels renders the same text but for its
// UUID. A payload is kept rendered for a placeholder UUID and the
// cluster's UUID substituted in.
//
// That is sound only if the charts use the UUID verbatim. It is proven once
// per key, not assumed: the payload is rendered for the lowest and the
// highest UUID (every character different, every real UUID sorts between
// them) and kept only if substituting one for the other gives exactly the
// other rendering. A chart that truncated, hashed, re-cased or sorted by
// the UUID would fail that check, and its payloads are rendered per
// cluster, as before. UUIDs not in the canonical lowercase form (keel
// generates that form; a hand-written repository may not) are always
// rendered per cluster.
type uuidPayloadCache[K comparable] struct {
	m memo.Map[K, uuidPayload]
}

type uuidPayload struct {
	data map[string]string // rendered for uuidLow
	ok   bool              // substitution proven exact for this key
}

const (
	uuidLow  = "00000000-0000-0000-0000-000000000000"
	uuidHigh = "ffffffff-ffff-ffff-ffff-ffffffffffff"
)

var canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// get returns render(uuid), from the cache when it can.
func (c *uuidPayloadCache[K]) get(key K, uuid string, render func(uuid string) (map[string]string, error)) (map[string]string, error) {
	if !canonicalUUID.MatchString(uuid) || uuid == uuidLow || uuid == uuidHigh {
		return render(uuid)
	}
	p, found := c.m.Get(key)
	if !found {
		low, err := render(uuidLow)
		if err != nil {
			return nil, err
		}
		high, err := render(uuidHigh)
		if err != nil {
			return nil, err
		}
		p = uuidPayload{data: low, ok: maps.Equal(substitute(low, uuidHigh), high)}
		c.m.Put(key, p)
	}
	if !p.ok {
		return render(uuid)
	}
	return substitute(p.data, uuid), nil
}

func substitute(data map[string]string, uuid string) map[string]string {
	out := make(map[string]string, len(data))
	for k, v := range data {
		out[k] = strings.ReplaceAll(v, uuidLow, uuid)
	}
	return out
}
