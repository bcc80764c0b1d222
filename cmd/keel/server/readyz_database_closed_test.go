package server

import (
	"net/http"
	"testing"
)

// Once the read model's database is gone, /readyz is 503 and names the
// database (the other checks still pass), while /healthz, which depends on
// nothing, still answers 200: the kubelet takes the replica out of the
// Service without restarting it.
func TestNotReadyWhenTheDatabaseIsClosed(t *testing.T) {
	in, _ := startKeel(t, "1.10")
	if err := in.DB.Close(); err != nil {
		t.Fatal(err)
	}
	code, body := getReadyz(t, in.URL)
	if code != http.StatusServiceUnavailable || body.Status != "not ready" {
		t.Fatalf("/readyz: %d %+v, want 503 not ready", code, body)
	}
	if got := body.Checks["database"]; got == "ok" || got == "" {
		t.Errorf("database check: %q, want its error", got)
	}
	for _, name := range []string{"git", "management-cluster"} {
		if body.Checks[name] != "ok" {
			t.Errorf("check %q: %q, want ok", name, body.Checks[name])
		}
	}
	if code := getCode(t, in.URL+"/healthz"); code != http.StatusOK {
		t.Errorf("/healthz: %d, want 200 (liveness must not depend on the database)", code)
	}
}
