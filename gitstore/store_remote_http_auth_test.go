package gitstore

import (
	"context"
	"errors"
	"net/http"
	"net/http/cgi"
	"net/http/httptest"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
)

// Over smart HTTP (git http-backend behind basic auth, as a Git server
// checks a token), keel authenticates with KEEL_GIT_USERNAME and
// KEEL_GIT_PASSWORD; without them it gets ErrRemoteUnavailable, and the
// token never shows in an error even when it is embedded in the URL.
func TestRemoteOverHTTPWithTokenFromEnv(t *testing.T) {
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		t.Fatal(err)
	}
	root := t.TempDir()
	remote := filepath.Join(root, "clusters.git")
	runGit(t, ".", "init", "-q", "--bare", "-b", Branch, remote)
	runGit(t, remote, "config", "http.receivepack", "true")
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
	}
	const token = "tok3n-s3cret"
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != "keel-bot" || p != token {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	}))
	defer srv.Close()
	url := srv.URL + "/clusters.git"
	ctx := context.Background()

	t.Setenv("KEEL_GIT_USERNAME", "")
	t.Setenv("KEEL_GIT_PASSWORD", "")
	auth, err := AuthFromEnv(url)
	if err != nil {
		t.Fatal(err)
	}
	_, err = OpenRemote(ctx, filepath.Join(t.TempDir(), "repo.git"), &Remote{URL: url, Auth: auth})
	if !errors.Is(err, ErrRemoteUnavailable) {
		t.Fatalf("without credentials: %v, want ErrRemoteUnavailable", err)
	}
	withToken := strings.Replace(url, "://", "://keel-bot:wrong-"+token+"@", 1)
	_, err = OpenRemote(ctx, filepath.Join(t.TempDir(), "repo.git"), &Remote{URL: withToken})
	if !errors.Is(err, ErrRemoteUnavailable) || strings.Contains(err.Error(), token) {
		t.Fatalf("with a wrong token in the URL: %v; want ErrRemoteUnavailable without the token", err)
	}

	t.Setenv("KEEL_GIT_USERNAME", "keel-bot")
	t.Setenv("KEEL_GIT_PASSWORD", token)
	if auth, err = AuthFromEnv(url); err != nil {
		t.Fatal(err)
	}
	s, err := OpenRemote(ctx, filepath.Join(t.TempDir(), "repo.git"), &Remote{URL: url, Auth: auth})
	if err != nil {
		t.Fatal(err)
	}
	h, err := s.Update(ctx, increment("over https"))
	if err != nil {
		t.Fatal(err)
	}
	if got := remoteMain(t, remote); got != h.String() {
		t.Fatalf("remote main = %s, want %s", got, h)
	}
}
