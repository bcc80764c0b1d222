package lightapi

import (
	"bytes"
	"encoding/json"
	"net/http"
	"strconv"
	"time"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
)

// watcher receives the events of one resource (in one namespace); the
// serving goroutine filters them by selector, off the store's lock.
type watcher struct {
	ch     chan *event
	gr, ns string
}

// watchBuffer is how far a watcher may fall behind before it is closed;
// its client then watches again from the last version it saw.
const watchBuffer = 256

// send offers e, false when the watcher fell behind and was closed.
func (w *watcher) send(e *event) bool {
	if e.gr != w.gr || w.ns != "" && e.ns != w.ns {
		return true
	}
	select {
	case w.ch <- e:
		return true
	default:
		w.stop()
		return false
	}
}

func (w *watcher) stop() { close(w.ch) }

// watchStart is where a watch begins: synthetic ADDED events for the
// current objects (initial) or the history after a resourceVersion.
type watchStart struct {
	initial bool
	from    uint64
}

func parseWatchStart(q map[string][]string) (watchStart, error) {
	get := func(k string) string {
		if v := q[k]; len(v) > 0 {
			return v[0]
		}
		return ""
	}
	rv, send := get("resourceVersion"), get("sendInitialEvents")
	if send == "true" || send == "" && (rv == "" || rv == "0") {
		return watchStart{initial: true}, nil
	}
	if rv == "" {
		return watchStart{}, nil
	}
	from, err := strconv.ParseUint(rv, 10, 64)
	if err != nil {
		return watchStart{}, apierrors.NewBadRequest("invalid resourceVersion " + rv)
	}
	return watchStart{from: from}, nil
}

// watch registers a watcher and returns the events before it: both under
// the lock, so none is missed or repeated.
func (s *Store) watch(r *resource, ns string, start watchStart) ([]*event, *watcher, uint64, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	var evs []*event
	if start.initial {
		for _, o := range s.listLocked(r.gr(), ns) {
			evs = append(evs, &event{typ: "ADDED", gr: r.gr(), obj: o})
		}
	} else if start.from != 0 {
		since, ok := s.since(start.from)
		if !ok {
			return nil, nil, 0, apierrors.NewResourceExpired("too old resource version: " + strconv.FormatUint(start.from, 10))
		}
		for _, e := range since {
			if e.gr == r.gr() && (ns == "" || e.ns == ns) {
				evs = append(evs, e)
			}
		}
	}
	w := &watcher{ch: make(chan *event, watchBuffer), gr: r.gr(), ns: ns}
	s.watchers[w] = struct{}{}
	return evs, w, s.rv, nil
}

func (s *Store) unwatch(w *watcher) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if _, ok := s.watchers[w]; ok {
		delete(s.watchers, w)
		w.stop()
	}
}

// watchStream writes one watch response.
type watchStream struct {
	c         *call
	f         filter
	bookmarks bool
	rv        uint64 // the last version sent: what a bookmark reports
}

func (h *handler) watch(c *call) {
	f, err := newFilter(c.rp.namespace, c.q)
	start, err2 := parseWatchStart(c.q)
	if err == nil {
		err = err2
	}
	if err != nil {
		writeError(c.w, err)
		return
	}
	ws := &watchStream{c: c, f: f, bookmarks: c.q.Get("allowWatchBookmarks") == "true"}
	c.w.Header().Set("Content-Type", "application/json")
	evs, w, rv, err := h.s.watch(c.res, c.rp.namespace, start)
	if err != nil {
		ws.writeError(err)
		return
	}
	defer h.s.unwatch(w)
	ws.rv = rv
	for _, e := range evs {
		ws.write(e)
	}
	if start.initial && c.q.Get("sendInitialEvents") == "true" && ws.bookmarks {
		ws.bookmark(rv, true)
	}
	ws.flush()
	ws.follow(w, c.q.Get("timeoutSeconds"), h.o.BookmarkInterval)
}

// follow streams the watcher's events until the timeout, the client
// leaving, or the watcher falling behind.
func (ws *watchStream) follow(w *watcher, timeoutSeconds string, bookmarkInterval time.Duration) {
	timeout := 30 * time.Minute
	if n, err := strconv.Atoi(timeoutSeconds); err == nil && n > 0 {
		timeout = time.Duration(n) * time.Second
	}
	end := time.NewTimer(timeout)
	defer end.Stop()
	tick := time.NewTicker(bookmarkInterval)
	defer tick.Stop()
	for {
		select {
		case e, ok := <-w.ch:
			if !ok {
				return
			}
			ws.write(e)
		case <-tick.C:
			if ws.bookmarks {
				ws.bookmark(ws.rv, false)
			}
		case <-end.C:
			return
		case <-ws.c.r.Context().Done():
			return
		}
		ws.flush()
	}
}

func (ws *watchStream) write(e *event) {
	if e.rv > ws.rv {
		ws.rv = e.rv
	}
	if !ws.f.matches(e.obj) {
		return
	}
	ws.line(e.typ, ws.c.render(e.obj))
}

func (ws *watchStream) line(typ string, obj []byte) {
	var buf bytes.Buffer
	buf.WriteString(`{"type":"` + typ + `","object":`)
	buf.Write(obj)
	buf.WriteString("}\n")
	_, _ = ws.c.w.Write(buf.Bytes()) // a gone watcher is noticed by its context
}

// bookmark reports rv; end marks the end of a streaming list's initial
// events, which client-go's WatchList waits for.
func (ws *watchStream) bookmark(rv uint64, end bool) {
	meta := map[string]any{"resourceVersion": strconv.FormatUint(rv, 10)}
	if end {
		meta["annotations"] = map[string]string{metav1.InitialEventsAnnotationKey: "true"}
	}
	obj := map[string]any{"kind": ws.c.res.kind, "apiVersion": ws.c.apiVersion(), "metadata": meta}
	if ws.c.partial() {
		obj["kind"], obj["apiVersion"] = "PartialObjectMetadata", "meta.k8s.io/v1"
	}
	data, _ := json.Marshal(obj)
	ws.line("BOOKMARK", data)
}

// writeError ends the watch with an ERROR event, as a real server's watch
// cache reports an expired resourceVersion (410 Expired in the Status).
func (ws *watchStream) writeError(err error) {
	st := err.(apierrors.APIStatus).Status()
	st.Kind, st.APIVersion = "Status", "v1"
	data, _ := json.Marshal(&st)
	ws.c.w.WriteHeader(http.StatusOK)
	ws.line("ERROR", data)
}

func (ws *watchStream) flush() {
	if f, ok := ws.c.w.(http.Flusher); ok {
		f.Flush()
	}
}
