package server

import (
	"context"
	"encoding/json"
	"net/http"
	"testing"
	"time"

	"github.com/openkeel/keel/restapi/apierr"
	"github.com/openkeel/keel/restapi/auth"
)

// With Git (a remote Git server), the read model and the management cluster
// all answering, /readyz is 200 and lists each check as ok, without any
// credentials although every /v1 request is refused.
func TestReadyWhenEveryDependencyAnswers(t *testing.T) {
	remote := newGitServer(t)
	in, _ := startKeelWith(t, "1.10", func(o *Options) {
		o.GitRemote, o.GitRemoteInterval = remote, time.Hour
		o.Auth = denyAll{}
	})
	if code := getCode(t, in.URL+"/v1/clusters"); code != http.StatusUnauthorized {
		t.Fatalf("GET /v1/clusters without credentials: %d, want 401 (the test's authenticator refuses all)", code)
	}
	code, body := getReadyz(t, in.URL)
	if code != http.StatusOK || body.Status != "ready" {
		t.Fatalf("/readyz: %d %+v, want 200 ready", code, body)
	}
	for _, name := range []string{"git", "database", "management-cluster"} {
		if body.Checks[name] != "ok" {
			t.Errorf("check %q: %q, want ok", name, body.Checks[name])
		}
	}
}

// readyzBody is what /readyz answers.
type readyzBody struct {
	Status string            `json:"status"`
	Checks map[string]string `json:"checks"`
}

// getReadyz asks /readyz and checks that it answered within the probe's
// bound (every check has ProbeTimeout; they run concurrently).
func getReadyz(t *testing.T, url string) (int, readyzBody) {
	t.Helper()
	start := time.Now()
	resp, err := http.Get(url + "/readyz")
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if d := time.Since(start); d > ProbeTimeout+time.Second {
		t.Errorf("/readyz took %s, want at most about %s", d, ProbeTimeout)
	}
	var b readyzBody
	if err := json.NewDecoder(resp.Body).Decode(&b); err != nil {
		t.Fatalf("/readyz body: %v", err)
	}
	return resp.StatusCode, b
}

func getCode(t *testing.T, url string) int {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	return resp.StatusCode
}

// denyAll refuses every API request, as Keystone refuses a missing token.
type denyAll struct{}

func (denyAll) Authenticate(context.Context, *http.Request) (*auth.Credentials, error) {
	return nil, &apierr.Error{Status: http.StatusUnauthorized, Msg: "no token"}
}
