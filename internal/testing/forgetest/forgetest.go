// Package forgetest replays recorded forge API exchanges for the GitHub and
// GitLab adapters' tests. The recordings are JSON bodies copied from the
// forges' REST API documentation examples, trimmed to the fields keel reads:
// a recording, not a live server. The replay checks each request keel sends
// (method, path, query, auth header, JSON body) against the exchange
// expected next, and answers with the recorded body. Only *_test.go files
// import it.
package forgetest

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"reflect"
	"sync"
	"testing"
)

// Exchange is one recorded request and its answer.
type Exchange struct {
	Method string
	// Path is the escaped path the request must have
	// (e.g. /api/v4/projects/platform%2Fclusters/merge_requests).
	Path string
	// Query holds parameters the request must carry (others are allowed).
	Query map[string]string
	// Body is the JSON the request must send, compared as JSON ("" = none).
	Body string
	// Status answers (200 if 0); Header is added to the answer.
	Status int
	Header http.Header
	// Recording is the testdata file answered with; RecordingBody, if set,
	// is answered instead (for generated pages).
	Recording     string
	RecordingBody []byte
}

// Auth is the header every request must carry (e.g. "Authorization",
// "Bearer t").
type Auth struct{ Header, Value string }

// Replay is an httptest.Server answering Exchanges in order. A request
// beyond them, or out of order, fails the test; so does, at cleanup, an
// exchange never asked for.
type Replay struct {
	URL  string
	t    testing.TB
	auth Auth
	mu   sync.Mutex
	next int
	ex   []Exchange
}

// New starts a Replay of exchanges; it stops at the test's end.
func New(t testing.TB, auth Auth, exchanges ...Exchange) *Replay {
	t.Helper()
	r := &Replay{t: t, auth: auth, ex: exchanges}
	srv := httptest.NewServer(http.HandlerFunc(r.serve))
	r.URL = srv.URL
	t.Cleanup(func() {
		srv.Close()
		r.mu.Lock()
		defer r.mu.Unlock()
		if r.next < len(r.ex) {
			t.Errorf("forge replay: %d of %d exchanges not asked for; next %s %s",
				len(r.ex)-r.next, len(r.ex), r.ex[r.next].Method, r.ex[r.next].Path)
		}
	})
	return r
}

func (r *Replay) serve(w http.ResponseWriter, req *http.Request) {
	r.mu.Lock()
	if r.next >= len(r.ex) {
		r.mu.Unlock()
		r.t.Errorf("forge replay: unexpected request %s %s (all %d exchanges done)", req.Method, req.URL, len(r.ex))
		http.Error(w, `{"message":"unexpected request"}`, http.StatusTeapot)
		return
	}
	ex := r.ex[r.next]
	r.next++
	r.mu.Unlock()

	ok := true
	fail := func(format string, args ...any) {
		ok = false
		r.t.Errorf("forge replay: %s %s: "+format, append([]any{req.Method, req.URL}, args...)...)
	}
	if req.Method != ex.Method {
		fail("method, want %s", ex.Method)
	}
	if req.URL.EscapedPath() != ex.Path {
		fail("path, want %s", ex.Path)
	}
	for k, v := range ex.Query {
		if got := req.URL.Query().Get(k); got != v {
			fail("query %s=%q, want %q", k, got, v)
		}
	}
	if got := req.Header.Get(r.auth.Header); got != r.auth.Value {
		fail("header %s=%q, want %q", r.auth.Header, got, r.auth.Value)
	}
	body, err := io.ReadAll(req.Body)
	if err != nil {
		fail("reading body: %v", err)
	}
	if msg := compareJSON(body, ex.Body); msg != "" {
		fail("%s", msg)
	}
	if !ok {
		http.Error(w, `{"message":"request does not match the recording"}`, http.StatusTeapot)
		return
	}

	answer := ex.RecordingBody
	if answer == nil && ex.Recording != "" {
		if answer, err = os.ReadFile(ex.Recording); err != nil {
			r.t.Errorf("forge replay: %v", err)
		}
	}
	for k, vs := range ex.Header {
		for _, v := range vs {
			w.Header().Add(k, v)
		}
	}
	w.Header().Set("Content-Type", "application/json")
	status := ex.Status
	if status == 0 {
		status = http.StatusOK
	}
	w.WriteHeader(status)
	_, _ = w.Write(answer)
}

// compareJSON says how got differs from the JSON want ("" if it does not).
func compareJSON(got []byte, want string) string {
	if want == "" {
		if len(bytes.TrimSpace(got)) != 0 {
			return "body " + string(got) + ", want none"
		}
		return ""
	}
	var g, w any
	if err := json.Unmarshal(got, &g); err != nil {
		return "body " + string(got) + " is not JSON: " + err.Error()
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		return "recorded body is not JSON: " + err.Error()
	}
	if !reflect.DeepEqual(g, w) {
		return "body " + string(got) + ", want " + want
	}
	return ""
}

// Repeat is a JSON array of n copies of the recorded array's first element
// (a full page for a pagination test).
func Repeat(t testing.TB, recording string, n int) []byte {
	t.Helper()
	raw, err := os.ReadFile(recording)
	if err != nil {
		t.Fatal(err)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil || len(items) == 0 {
		t.Fatalf("%s: not a non-empty JSON array: %v", recording, err)
	}
	page := make([]json.RawMessage, n)
	for i := range page {
		page[i] = items[0]
	}
	out, err := json.Marshal(page)
	if err != nil {
		t.Fatal(err)
	}
	return out
}
