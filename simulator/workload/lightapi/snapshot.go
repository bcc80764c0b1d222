package lightapi

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"sort"
)

// snapshotHeader opens a snapshot; one snapshotEntry per line follows.
type snapshotHeader struct {
	ResourceVersion uint64 `json:"resourceVersion"`
}

type snapshotEntry struct {
	Resource string          `json:"resource"` // group/resource
	Object   json.RawMessage `json:"object"`
}

// Snapshot writes every object and the resourceVersion counter as JSON
// lines. CRDs come first so that Restore serves their resources before
// reading their objects. Watch history is not kept: a watch resumed
// after Restore from an older version is told to relist (Expired).
func (s *Store) Snapshot(w io.Writer) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	bw := bufio.NewWriter(w)
	enc := json.NewEncoder(bw)
	if err := enc.Encode(snapshotHeader{ResourceVersion: s.rv}); err != nil {
		return err
	}
	grs := make([]string, 0, len(s.objs))
	for gr := range s.objs {
		grs = append(grs, gr)
	}
	sort.Slice(grs, func(i, j int) bool { return (grs[i] == crdGR) || grs[j] != crdGR && grs[i] < grs[j] })
	for _, gr := range grs {
		for _, o := range s.listLocked(gr, "") {
			if err := enc.Encode(snapshotEntry{Resource: gr, Object: o.JSON()}); err != nil {
				return err
			}
		}
	}
	return bw.Flush()
}

// Restore replaces the store's content by a snapshot's. Watches open on
// the store end; their clients relist.
func (s *Store) Restore(r io.Reader) error {
	dec := json.NewDecoder(r)
	var h snapshotHeader
	if err := dec.Decode(&h); err != nil {
		return fmt.Errorf("lightapi: snapshot header: %w", err)
	}
	s.mu.Lock()
	defer s.mu.Unlock()
	s.reset()
	for {
		var e snapshotEntry
		if err := dec.Decode(&e); err == io.EOF {
			break
		} else if err != nil {
			return fmt.Errorf("lightapi: snapshot entry: %w", err)
		}
		if err := s.restoreEntry(e); err != nil {
			return err
		}
	}
	s.rv, s.compacted = h.ResourceVersion, h.ResourceVersion
	return nil
}

func (s *Store) restoreEntry(e snapshotEntry) error {
	r := s.resourceByGR(e.Resource)
	if r == nil {
		return fmt.Errorf("lightapi: snapshot holds %s, which no CRD serves", e.Resource)
	}
	u, err := decodeJSON(e.Object)
	if err != nil {
		return err
	}
	o, err := newObject(u)
	if err != nil {
		return err
	}
	if s.objs[e.Resource] == nil {
		s.objs[e.Resource] = map[string]*object{}
	}
	s.objs[e.Resource][key(u.GetNamespace(), u.GetName())] = o
	s.crdChanged(r, u)
	return nil
}
