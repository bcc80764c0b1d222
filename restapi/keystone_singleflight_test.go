package restapi

import (
	"context"
	"net/http"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/openkeel/keel/restapi/auth"
)

// Concurrent first requests with one token cost Keystone one validation:
// the fake holds the first validation until all 50 callers have started or
// joined theirs, so callers that each validated would show as 50.
func TestKeystoneSingleflight(t *testing.T) {
	var joined atomic.Int32
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.OnJoin = func() { joined.Add(1) } })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	a.ks.Hold("GET /v3/auth/tokens")
	statuses := a.concurrentGets(map[string]int{tok: 50}, func() {
		waitFor(t, "50 callers on one validation", func() bool { return joined.Load() == 50 && a.ks.Validations() >= 1 })
		a.ks.Release()
	})
	for i, s := range statuses[tok] {
		if s != http.StatusOK {
			t.Errorf("request %d: %d, want 200", i, s)
		}
	}
	if n := a.ks.Validations(); n != 1 {
		t.Fatalf("%d validations for 50 concurrent requests with one token, want 1", n)
	}
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK || a.ks.Validations() != 1 {
		t.Fatalf("after the flight: %d, %d validations; want 200 from the cache", r.status, a.ks.Validations())
	}
}

// A shared validation that fails (Keystone gone mid-validation) is a 503
// for the callers that shared it, and is not cached: the next request
// validates again. A token's outcome is its own: concurrent flights of two
// tokens, one revoked meanwhile, answer 401 and 200.
func TestKeystoneSingleflightFailureNotShared(t *testing.T) {
	var joined atomic.Int32
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.OnJoin = func() { joined.Add(1) } })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	a.ks.Hold("GET /v3/auth/tokens")
	statuses := a.concurrentGets(map[string]int{tok: 10}, func() {
		waitFor(t, "10 callers on one validation", func() bool { return joined.Load() == 10 && a.ks.Validations() == 1 })
		a.ks.SetDown(true)
		a.ks.Release()
	})
	for i, s := range statuses[tok] {
		if s != http.StatusServiceUnavailable {
			t.Errorf("request %d while Keystone failed: %d, want 503", i, s)
		}
	}
	a.ks.SetDown(false)
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("after Keystone came back: %d %s", r.status, r.body)
	}
	if n := a.ks.Validations(); n != 2 {
		t.Fatalf("%d validations, want 2: the failure must not be cached", n)
	}

	revoked, other := a.ks.Issue(t, ksMember.Name, 0), a.ks.Issue(t, ksReader.Name, 0)
	joined.Store(0)
	a.ks.Hold("GET /v3/auth/tokens")
	statuses = a.concurrentGets(map[string]int{revoked: 5, other: 5}, func() {
		waitFor(t, "two flights", func() bool { return joined.Load() == 10 && a.ks.Validations() == 4 })
		a.ks.Revoke(revoked)
		a.ks.Release()
	})
	for i := range 5 {
		if s := statuses[revoked][i]; s != http.StatusUnauthorized {
			t.Errorf("revoked token, request %d: %d, want 401", i, s)
		}
		if s := statuses[other][i]; s != http.StatusOK {
			t.Errorf("other token, request %d: %d, want 200", i, s)
		}
	}
}

// A caller that goes away while its validation is under way does not fail
// the callers that joined it: the shared validation has its own context.
func TestKeystoneSingleflightCallerCancelled(t *testing.T) {
	var joined atomic.Int32
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.OnJoin = func() { joined.Add(1) } })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	a.ks.Hold("GET /v3/auth/tokens")
	type result struct {
		creds *auth.Credentials
		err   error
	}
	authenticate := func(ctx context.Context) <-chan result {
		ch := make(chan result, 1)
		req, _ := http.NewRequest("GET", "/v1/clustertemplates", nil)
		req.Header.Set("X-Auth-Token", tok)
		go func() {
			c, err := a.auth.Authenticate(ctx, req)
			ch <- result{c, err}
		}()
		return ch
	}
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	first := authenticate(ctx)
	waitFor(t, "the first validation", func() bool { return joined.Load() == 1 && a.ks.Validations() == 1 })
	second := authenticate(context.Background())
	waitFor(t, "the second caller", func() bool { return joined.Load() == 2 })
	cancel()
	select {
	case r := <-first:
		if r.err == nil {
			t.Fatal("the cancelled caller got credentials")
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the cancelled caller still waits")
	}
	a.ks.Release()
	select {
	case r := <-second:
		if r.err != nil || r.creds.UserID != ksMember.ID {
			t.Fatalf("the other caller: %+v, %v; want %s's credentials", r.creds, r.err, ksMember.Name)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("the other caller still waits")
	}
	if n := a.ks.Validations(); n != 1 {
		t.Fatalf("%d validations, want 1", n)
	}
}

// concurrentGets sends, all at once, n GET requests with each token; while
// they are under way it runs during. It returns the statuses per token.
func (a *keystoneAPI) concurrentGets(n map[string]int, during func()) map[string][]int {
	a.t.Helper()
	var mu sync.Mutex
	var wg sync.WaitGroup
	statuses := map[string][]int{}
	for tok, count := range n {
		statuses[tok] = make([]int, count)
		for i := range count {
			wg.Go(func() {
				req, _ := http.NewRequest("GET", a.srv.URL+"/v1/clustertemplates", nil)
				req.Header.Set("X-Auth-Token", tok)
				status := 0 // a transport error
				if resp, err := a.srv.Client().Do(req); err == nil {
					resp.Body.Close()
					status = resp.StatusCode
				}
				mu.Lock()
				statuses[tok][i] = status
				mu.Unlock()
			})
		}
	}
	during()
	wg.Wait()
	return statuses
}

// waitFor polls cond until it holds, failing the test after 10 s.
func waitFor(t *testing.T, what string, cond func() bool) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for !cond() {
		if time.Now().After(deadline) {
			t.Fatalf("timed out waiting for %s", what)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
