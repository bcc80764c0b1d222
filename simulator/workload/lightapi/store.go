package lightapi

import (
	"sort"
	"strconv"
	"strings"
	"sync"
)

// Store holds one workload cluster's objects; safe for concurrent use.
// Every write holds mu from its read of the current object to its event,
// so resourceVersions, history and watchers see one total order.
type Store struct {
	mu   sync.Mutex
	rv   uint64
	objs map[string]map[string]*object // group/resource → namespace/name
	crds map[string]*resource          // group/resource → served by a CRD

	hist      []*event // ring of the last len(hist) events (shared with watchers)
	next      int      // where the next event goes in hist
	compacted uint64   // events at or below this resourceVersion are gone
	watchers  map[*watcher]struct{}
	histSize  int
}

// event is one change as watchers see it.
type event struct {
	rv       uint64
	gr, ns   string
	typ      string // ADDED, MODIFIED, DELETED
	obj      *object
	resource *resource
}

// DefaultHistorySize bounds each store's watch history: a watcher further
// behind relists (410 Gone), as with a real server's watch cache.
const DefaultHistorySize = 1000

// NewStore returns a store holding the namespaces a new cluster has.
func NewStore() *Store {
	s := &Store{histSize: DefaultHistorySize}
	s.reset()
	for _, ns := range []string{"default", "kube-system", "kube-public", "kube-node-lease"} {
		u := newUnstructured("v1", "Namespace", "", ns)
		u.Object["spec"] = map[string]any{"finalizers": []any{"kubernetes"}}
		u.Object["status"] = map[string]any{"phase": "Active"}
		if _, err := s.createLocked(builtinByGR["/namespaces"], u, false); err != nil {
			panic(err)
		}
	}
	return s
}

// SetHistorySize changes how many events the store keeps for watches to
// resume from (DefaultHistorySize). The history holds old versions of
// objects (their bodies shared), so a fleet of clusters whose objects
// change often, such as node Leases, may want it smaller.
func (s *Store) SetHistorySize(n int) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.histSize = max(n, 1)
	kept, _ := s.since(s.compacted) // oldest first
	if drop := len(kept) - s.histSize; drop > 0 {
		s.compacted = kept[drop-1].rv
		kept = kept[drop:]
	}
	s.hist, s.next = kept, 0
}

func (s *Store) reset() {
	for _, objs := range s.objs {
		for _, o := range objs {
			o.free()
		}
	}
	s.rv, s.next, s.compacted = 0, 0, 0
	s.objs = map[string]map[string]*object{}
	s.crds = map[string]*resource{}
	s.hist = nil
	for w := range s.watchers {
		w.stop()
	}
	s.watchers = map[*watcher]struct{}{}
}

func key(ns, name string) string { return ns + "/" + name }

func (s *Store) get(gr, ns, name string) *object { return s.objs[gr][key(ns, name)] }

// listLocked returns the objects of gr in ns (all namespaces when empty),
// ordered by namespace and name as a real server lists them.
func (s *Store) listLocked(gr, ns string) []*object {
	objs := s.objs[gr]
	keys := make([]string, 0, len(objs))
	for k := range objs {
		if ns == "" || strings.HasPrefix(k, ns+"/") {
			keys = append(keys, k)
		}
	}
	sort.Strings(keys)
	out := make([]*object, len(keys))
	for i, k := range keys {
		out[i] = objs[k]
	}
	return out
}

// record stores o (nil: removes) under gr/ns/name and tells watchers.
func (s *Store) record(r *resource, ns, name, typ string, o *object) {
	k := key(ns, name)
	old := s.objs[r.gr()][k]
	if typ == "DELETED" {
		delete(s.objs[r.gr()], k)
	} else {
		if s.objs[r.gr()] == nil {
			s.objs[r.gr()] = map[string]*object{}
		}
		s.objs[r.gr()][k] = o
	}
	if old != nil {
		old.free()
	}
	s.appendEvent(&event{rv: s.rv, gr: r.gr(), ns: ns, typ: typ, obj: o, resource: r})
}

func (s *Store) appendEvent(e *event) {
	if len(s.hist) < s.histSize {
		s.hist = append(s.hist, e)
	} else {
		s.compacted = s.hist[s.next].rv
		s.hist[s.next] = e
		s.next = (s.next + 1) % s.histSize
	}
	for w := range s.watchers {
		if !w.send(e) {
			delete(s.watchers, w)
		}
	}
}

// since returns the events after rv, false when some are no longer kept.
func (s *Store) since(rv uint64) ([]*event, bool) {
	if rv < s.compacted {
		return nil, false
	}
	var out []*event
	for i := range s.hist {
		e := s.hist[(s.next+i)%len(s.hist)]
		if e.rv > rv {
			out = append(out, e)
		}
	}
	return out, true
}

func (s *Store) nextRV() string {
	s.rv++
	return strconv.FormatUint(s.rv, 10)
}
