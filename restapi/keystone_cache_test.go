package restapi

import (
	"fmt"
	"net/http"
	"sync"
	"testing"
	"time"

	"github.com/openkeel/keel/restapi/auth"
)

// A validated token is reused without asking Keystone again, a refused
// one too; the service user authenticates once.
func TestKeystoneCache(t *testing.T) {
	a := newKeystoneAPI(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	for i := 0; i < 3; i++ {
		if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	if n := a.ks.Validations(); n != 1 {
		t.Fatalf("%d validations for three requests with one token, want 1", n)
	}
	for i := 0; i < 3; i++ {
		a.expectUnauthorized(a.doToken("bogus", "GET", "/v1/clustertemplates", nil))
	}
	if n := a.ks.Validations(); n != 2 {
		t.Fatalf("%d validations after three requests with a bogus token, want 2", n)
	}
	if n := a.ks.Authentications(); n != 1 {
		t.Fatalf("the service user authenticated %d times, want 1", n)
	}
	// Another token is another validation.
	other := a.ks.Issue(t, ksReader.Name, 0)
	if r := a.doToken(other, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("reader: %d %s", r.status, r.body)
	}
	if n := a.ks.Validations(); n != 3 {
		t.Fatalf("%d validations, want 3", n)
	}
}

// A cache entry lives at most CacheTTL: after it, the token is validated
// again, so a token revoked in Keystone stops working.
func TestKeystoneCacheExpiry(t *testing.T) {
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.CacheTTL = 200 * time.Millisecond })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("first: %d %s", r.status, r.body)
	}
	a.ks.Revoke(tok)
	// Within the TTL the cached validation answers.
	if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
		t.Fatalf("cached: %d %s", r.status, r.body)
	}
	if n := a.ks.Validations(); n != 1 {
		t.Fatalf("%d validations within the TTL, want 1", n)
	}
	time.Sleep(300 * time.Millisecond)
	a.expectUnauthorized(a.doToken(tok, "GET", "/v1/clustertemplates", nil))
	if n := a.ks.Validations(); n != 2 {
		t.Fatalf("%d validations after the TTL, want 2", n)
	}
}

// A negative CacheTTL validates every request.
func TestKeystoneCacheDisabled(t *testing.T) {
	a := newKeystoneAPI(t, func(k *auth.Keystone) { k.CacheTTL = -1 })
	tok := a.ks.Issue(t, ksMember.Name, 0)
	for i := 0; i < 2; i++ {
		if r := a.doToken(tok, "GET", "/v1/clustertemplates", nil); r.status != http.StatusOK {
			t.Fatalf("request %d: %d %s", i, r.status, r.body)
		}
	}
	if n := a.ks.Validations(); n != 2 {
		t.Fatalf("%d validations with the cache off, want 2", n)
	}
}

// Concurrent requests with fresh and known tokens share the cache safely
// (run with -race).
func TestKeystoneCacheConcurrent(t *testing.T) {
	a := newKeystoneAPI(t)
	toks := []string{a.ks.Issue(t, ksMember.Name, 0), a.ks.Issue(t, ksReader.Name, 0), "bogus"}
	errs := make(chan string, 30)
	var wg sync.WaitGroup
	for i := 0; i < 30; i++ {
		wg.Add(1)
		go func(tok string) {
			defer wg.Done()
			req, _ := http.NewRequest("GET", a.srv.URL+"/v1/clustertemplates", nil)
			req.Header.Set("X-Auth-Token", tok)
			resp, err := a.srv.Client().Do(req)
			if err != nil {
				errs <- err.Error()
				return
			}
			resp.Body.Close()
			if want := map[bool]int{true: 401, false: 200}[tok == "bogus"]; resp.StatusCode != want {
				errs <- fmt.Sprintf("token %.8s: %d, want %d", tok, resp.StatusCode, want)
			}
		}(toks[i%len(toks)])
	}
	wg.Wait()
	close(errs)
	for e := range errs {
		t.Error(e)
	}
	if n := a.ks.Authentications(); n != 1 {
		t.Fatalf("the service user authenticated %d times, want 1", n)
	}
}
