package compiler

import (
	"bytes"
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
	// blocks are the literal blocks of data's literal-safe texts under
	// literal keys, split where uuidLow was (kept for ok payloads only).
	blocks map[string][][]byte
}

const (
	uuidLow  = "00000000-0000-0000-0000-000000000000"
	uuidHigh = "ffffffff-ffff-ffff-ffff-ffffffffffff"
)

var canonicalUUID = regexp.MustCompile(`^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$`)

// get returns render(uuid), from the cache when it can.
func (c *uuidPayloadCache[K]) get(key K, uuid string, render func(uuid string) (map[string]string, error)) (map[string]string, error) {
	p, err := c.lookup(key, uuid, render)
	if err != nil || !p.ok {
		return p.data, err
	}
	return substitute(p.data, uuid), nil
}

// getBlocks is get for a payload ConfigMap: the texts kept as literal
// blocks are given as those blocks, the UUID set in without copying the
// rest (a block is what literalBlock gives for the substituted text: the
// UUID, hex digits and dashes, changes neither the lines nor their
// safety), and as empty texts in data.
func (c *uuidPayloadCache[K]) getBlocks(key K, uuid string, render func(uuid string) (map[string]string, error)) (map[string]string, map[string]literal, error) {
	p, err := c.lookup(key, uuid, render)
	if err != nil || !p.ok {
		return p.data, nil, err
	}
	data := make(map[string]string, len(p.data))
	known := make(map[string]literal, len(p.blocks))
	id := []byte(uuid)
	for k, v := range p.data {
		segs, ok := p.blocks[k]
		if !ok {
			data[k] = strings.ReplaceAll(v, uuidLow, uuid)
			continue
		}
		data[k] = ""
		pieces := make(literal, 0, 2*len(segs)-1)
		for i, s := range segs {
			if i > 0 {
				pieces = append(pieces, id)
			}
			pieces = append(pieces, s)
		}
		known[k] = pieces
	}
	return data, known, nil
}

// splitBlocks are the literal blocks of the literal-safe texts of data
// under literal keys, split where uuidLow was.
func splitBlocks(data map[string]string) map[string][][]byte {
	out := map[string][][]byte{}
	for k, v := range data {
		if !literalKey(k) || !literalBlockSafe(v) {
			continue
		}
		out[k] = bytes.Split(indentBlock(v), []byte(uuidLow))
	}
	return out
}

// lookup is the kept payload of key, rendered for uuid itself (not ok)
// when it cannot be kept.
func (c *uuidPayloadCache[K]) lookup(key K, uuid string, render func(uuid string) (map[string]string, error)) (uuidPayload, error) {
	if !canonicalUUID.MatchString(uuid) || uuid == uuidLow || uuid == uuidHigh {
		data, err := render(uuid)
		return uuidPayload{data: data}, err
	}
	p, found := c.m.Get(key)
	if !found {
		low, err := render(uuidLow)
		if err != nil {
			return uuidPayload{}, err
		}
		high, err := render(uuidHigh)
		if err != nil {
			return uuidPayload{}, err
		}
		p = uuidPayload{data: low, ok: maps.Equal(substitute(low, uuidHigh), high)}
		if p.ok {
			p.blocks = splitBlocks(low)
		}
		c.m.Put(key, p)
	}
	if !p.ok {
		data, err := render(uuid)
		return uuidPayload{data: data}, err
	}
	return p, nil
}

func substitute(data map[string]string, uuid string) map[string]string {
	out := make(map[string]string, len(data))
	for k, v := range data {
		out[k] = strings.ReplaceAll(v, uuidLow, uuid)
	}
	return out
}
