// Package giteatest runs a real Gitea server for tests: the binary
// hack/gitea.sh builds from Gitea's Go module (cached beside kube-apiserver
// and etcd), on loopback, with SQLite in a temporary folder, an admin user
// and an access token. Only *_test.go files import it.
package giteatest

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/openkeel/keel/mgmtcluster/binaries"
)

// Version is the Gitea release hack/gitea.sh builds.
const Version = "v1.27.3"

// Admin user the server is set up with.
const (
	User     = "keel-admin"
	Password = "keel-test-password-1"
)

// Server is a running Gitea.
type Server struct {
	URL   string // http://127.0.0.1:PORT (no trailing slash)
	Token string // an access token of User with every scope
	// StartTime is how long the server took to be set up and answer.
	StartTime time.Duration

	bin, dir, ini string
	cmd           *exec.Cmd
	done          chan struct{}
	logs          lockedWriter
}

var buildOnce = sync.OnceValues(ensure)

// Binary is the path of the Gitea binary: $KEEL_GITEA, else the testbin
// cache's gitea-<Version>.
func Binary() string {
	if b := os.Getenv("KEEL_GITEA"); b != "" {
		return b
	}
	return filepath.Join(filepath.Dir(binaries.Dir()), "gitea-"+Version)
}

// ensure builds the binary with hack/gitea.sh when it is missing (minutes,
// once per machine).
func ensure() (string, error) {
	bin := Binary()
	if fi, err := os.Stat(bin); err == nil && fi.Mode()&0o111 != 0 {
		return bin, nil
	}
	root, err := binaries.SourceRoot()
	if err != nil {
		return "", err
	}
	cmd := exec.Command("bash", filepath.Join(root, "hack", "gitea.sh"))
	cmd.Env = append(os.Environ(), "KEEL_TESTBIN_DIR="+filepath.Dir(bin))
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	if err != nil {
		return "", fmt.Errorf("building gitea with hack/gitea.sh: %w", err)
	}
	return strings.TrimSpace(string(out)), nil
}

// Start sets up and starts a Gitea for the test, stopped at its end.
func Start(t testing.TB) *Server {
	t.Helper()
	bin, err := buildOnce()
	if err != nil {
		t.Fatal(err)
	}
	began := time.Now()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	s := &Server{bin: bin, dir: t.TempDir(), URL: fmt.Sprintf("http://127.0.0.1:%d", port), done: make(chan struct{})}
	s.ini = filepath.Join(s.dir, "app.ini")
	// Built without bindata: locales and templates are read from Gitea's
	// module folder (translations are needed even by the API's cron set-up).
	modcache, err := exec.Command("go", "env", "GOMODCACHE").Output()
	if err != nil {
		t.Fatal(err)
	}
	static := filepath.Join(strings.TrimSpace(string(modcache)), "code.gitea.io", "gitea@"+Version)
	if err := os.WriteFile(s.ini, []byte(appINI(s.dir, static, port)), 0o600); err != nil {
		t.Fatal(err)
	}
	if out, err := s.run("migrate"); err != nil {
		t.Fatalf("gitea migrate: %v\n%s", err, out)
	}
	if out, err := s.run("admin", "user", "create", "--admin", "--username", User, "--password", Password,
		"--email", User+"@example.org", "--must-change-password=false"); err != nil {
		t.Fatalf("gitea admin user create: %v\n%s", err, out)
	}
	out, err := s.run("admin", "user", "generate-access-token", "--username", User, "--token-name", "keel",
		"--scopes", "all", "--raw")
	if err != nil {
		t.Fatalf("gitea admin user generate-access-token: %v\n%s", err, out)
	}
	s.Token = strings.TrimSpace(lastLine(out))

	s.cmd = exec.Command(bin, "web", "--config", s.ini, "--work-path", s.dir) //nolint:gosec // keel's own testbin build
	s.cmd.Env = s.env()
	s.cmd.Stdout, s.cmd.Stderr = &s.logs, &s.logs
	if err := s.cmd.Start(); err != nil {
		t.Fatal(err)
	}
	go func() { _ = s.cmd.Wait(); close(s.done) }()
	t.Cleanup(s.stop)
	if err := s.waitReady(60 * time.Second); err != nil {
		t.Fatalf("gitea did not start: %v\n%s", err, s.logs.String())
	}
	s.StartTime = time.Since(began)
	return s
}

func (s *Server) env() []string {
	return append(os.Environ(), "GITEA_WORK_DIR="+s.dir, "HOME="+s.dir, "USER=root")
}

// run runs a gitea sub-command on the server's configuration.
func (s *Server) run(args ...string) (string, error) {
	args = append(args, "--config", s.ini, "--work-path", s.dir)
	cmd := exec.Command(s.bin, args...) //nolint:gosec // keel's own testbin build
	cmd.Env = s.env()
	out, err := cmd.CombinedOutput()
	return string(out), err
}

func (s *Server) waitReady(timeout time.Duration) error {
	deadline := time.Now().Add(timeout)
	for time.Now().Before(deadline) {
		select {
		case <-s.done:
			return fmt.Errorf("gitea exited")
		default:
		}
		resp, err := http.Get(s.URL + "/api/v1/version")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		time.Sleep(100 * time.Millisecond)
	}
	return fmt.Errorf("no answer from %s within %s", s.URL, timeout)
}

func (s *Server) stop() {
	if s.cmd == nil || s.cmd.Process == nil {
		return
	}
	_ = s.cmd.Process.Signal(os.Interrupt)
	select {
	case <-s.done:
	case <-time.After(10 * time.Second):
		_ = s.cmd.Process.Kill()
		<-s.done
	}
}

// Logs is what the server printed so far.
func (s *Server) Logs() string { return s.logs.String() }

// CreateRepo creates an empty repository of User and returns its clone URL
// (http://127.0.0.1:PORT/keel-admin/NAME.git).
func (s *Server) CreateRepo(t testing.TB, name string) string {
	t.Helper()
	var repo struct {
		CloneURL string `json:"clone_url"`
	}
	s.Do(t, http.MethodPost, "/api/v1/user/repos", map[string]any{"name": name, "default_branch": "main"}, &repo)
	return repo.CloneURL
}

// Do calls Gitea's API as User; a status of 300 or more fails the test.
func (s *Server) Do(t testing.TB, method, path string, body, out any) {
	t.Helper()
	var r *bytes.Reader
	if body != nil {
		b, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		r = bytes.NewReader(b)
	} else {
		r = bytes.NewReader(nil)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, method, s.URL+path, r)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Authorization", "token "+s.Token)
	req.Header.Set("Content-Type", "application/json")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var buf bytes.Buffer
	_, _ = buf.ReadFrom(resp.Body)
	if resp.StatusCode >= 300 {
		t.Fatalf("gitea %s %s: %s: %s", method, path, resp.Status, buf.String())
	}
	if out != nil {
		if err := json.Unmarshal(buf.Bytes(), out); err != nil {
			t.Fatalf("gitea %s %s: %v: %s", method, path, err, buf.String())
		}
	}
}

func appINI(dir, static string, port int) string {
	return fmt.Sprintf(`APP_NAME = keel-test
RUN_MODE = prod
WORK_PATH = %[1]s
; tests and CI run as root
I_AM_BEING_UNSAFE_RUNNING_AS_ROOT = true

[database]
DB_TYPE = sqlite3
PATH = %[1]s/gitea.db

[repository]
ROOT = %[1]s/repositories
DEFAULT_BRANCH = main

[server]
PROTOCOL = http
HTTP_ADDR = 127.0.0.1
HTTP_PORT = %[2]d
ROOT_URL = http://127.0.0.1:%[2]d/
APP_DATA_PATH = %[1]s/data
STATIC_ROOT_PATH = %[3]s
DISABLE_SSH = true
START_SSH_SERVER = false
OFFLINE_MODE = true
LFS_START_SERVER = false

[security]
INSTALL_LOCK = true
SECRET_KEY = keel-test-secret-key
PASSWORD_HASH_ALGO = pbkdf2_hi

[webhook]
; webhooks to keel on loopback (the setting is [webhook]'s, not [security]'s)
ALLOWED_HOST_LIST = loopback
DELIVER_TIMEOUT = 10

[oauth2]
ENABLED = false

[service]
DISABLE_REGISTRATION = true

[mailer]
ENABLED = false

[session]
PROVIDER = memory

[cache]
ADAPTER = memory

[cron]
ENABLED = false

[cron.update_checker]
ENABLED = false

[indexer]
ISSUE_INDEXER_TYPE = db
REPO_INDEXER_ENABLED = false

[queue]
TYPE = channel

[actions]
ENABLED = false

[log]
MODE = console
LEVEL = warn
ROOT_PATH = %[1]s/log
`, dir, port, static)
}

func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	return lines[len(lines)-1]
}

// lockedWriter is the server's output: written by exec's copiers, read by
// Logs.
type lockedWriter struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (w *lockedWriter) String() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.String()
}

func (w *lockedWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.b.Write(p)
}

// Merge merges pull request number of User's repository repo as a person
// would with the button. Gitea checks mergeability in the background after
// a pull request opens and refuses a merge until then (405), so it retries.
func (s *Server) Merge(t testing.TB, repo string, number int64) {
	t.Helper()
	path := fmt.Sprintf("%s/api/v1/repos/%s/%s/pulls/%d/merge", s.URL, User, repo, number)
	deadline := time.Now().Add(60 * time.Second)
	for {
		req, err := http.NewRequest(http.MethodPost, path, strings.NewReader(`{"Do": "merge"}`))
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "token "+s.Token)
		req.Header.Set("Content-Type", "application/json")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		var buf bytes.Buffer
		_, _ = buf.ReadFrom(resp.Body)
		resp.Body.Close()
		switch {
		case resp.StatusCode < 300:
			return
		case resp.StatusCode == http.StatusMethodNotAllowed && time.Now().Before(deadline):
			time.Sleep(200 * time.Millisecond)
		default:
			t.Fatalf("merging pull request %d: %s: %s", number, resp.Status, buf.String())
		}
	}
}
