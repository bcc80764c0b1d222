package server

import (
	"net/http"
	"os"
	"strings"
	"testing"
	"time"
)

// While the Git server cannot be reached, /readyz is 503 and names git; it
// is ready again once the server is back.
func TestNotReadyWhileTheGitRemoteIsUnreachable(t *testing.T) {
	remote := newGitServer(t)
	in, _ := startKeelRemote(t, remote, time.Hour, "")
	if err := os.Rename(remote, remote+".down"); err != nil {
		t.Fatal(err)
	}
	code, body := getReadyz(t, in.URL)
	if code != http.StatusServiceUnavailable || !strings.Contains(body.Checks["git"], "unavailable") {
		t.Fatalf("/readyz with the Git server down: %d %+v, want 503 naming git", code, body)
	}
	if err := os.Rename(remote+".down", remote); err != nil {
		t.Fatal(err)
	}
	if code, body := getReadyz(t, in.URL); code != http.StatusOK {
		t.Fatalf("/readyz with the Git server back: %d %+v, want 200", code, body)
	}
}
