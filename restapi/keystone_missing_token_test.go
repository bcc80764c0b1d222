package restapi

import (
	"net/http"
	"testing"
)

// Without X-Auth-Token every API route is 401 in keystonemiddleware's
// format (NoAuth's identity headers do not count), Keystone is not asked,
// and the version documents stay public.
func TestKeystoneMissingToken(t *testing.T) {
	a := newKeystoneAPI(t)
	for _, path := range []string{"/v1/clustertemplates", "/v1/clusters", "/clusters/detail", "/v1/mservices"} {
		a.expectUnauthorized(a.doToken("", "GET", path, nil))
	}
	a.expectNoCommit(func() {
		a.expectUnauthorized(a.doToken("", "POST", "/v1/clustertemplates", templateBody("t", nil)))
	})
	for _, path := range []string{"/", "/v1", "/v1/"} {
		if r := a.doToken("", "GET", path, nil); r.status != http.StatusOK {
			t.Fatalf("GET %s without a token: %d %s", path, r.status, r.body)
		}
	}
	if n := a.ks.Requests("POST /v3/auth/tokens") + a.ks.Validations(); n != 0 {
		t.Fatalf("Keystone was called %d times for requests without a token", n)
	}
}
