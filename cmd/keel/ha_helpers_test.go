package main

import (
	"bufio"
	"bytes"
	"context"
	"database/sql"
	"encoding/json"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/http/cgi"
	"os"
	"os/exec"
	"os/user"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"filippo.io/age"
	"github.com/go-logr/logr"
	_ "github.com/jackc/pgx/v5/stdlib" // PostgreSQL driver
	coordinationv1 "k8s.io/api/coordination/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/mgmtcluster"
)

// The HA tests run keel as it runs in production with several replicas:
// real `keel serve` processes (so that kill -9 kills one), one management
// cluster (kube-apiserver + etcd) where Cluster API's own controllers and
// webhooks run (in the test process, with simulated OpenStack and workload
// clusters: what clusterctl installs on a real one), one PostgreSQL server of the test's own
// (so it can be restarted without touching the machine's), and one Git
// server (git http-backend behind basic auth) as --git-remote.

var (
	haOnce    sync.Once
	haBin     string
	haMgmt    *mgmtcluster.Env
	haKubecfg string
	haErr     error
	haTmp     string
	haStopAPI context.CancelFunc
	haAPIDone chan error
)

func TestMain(m *testing.M) {
	code := m.Run()
	if haStopAPI != nil {
		haStopAPI()
		if err := <-haAPIDone; err != nil {
			fmt.Fprintln(os.Stderr, "Cluster API's controllers stopped with:", err)
		}
	}
	if haMgmt != nil {
		_ = haMgmt.Stop()
	}
	if haTmp != "" {
		_ = os.RemoveAll(haTmp)
	}
	if keelBinDir != "" {
		_ = os.RemoveAll(keelBinDir)
	}
	os.Exit(code)
}

// haShared builds keel and starts the management cluster once for the
// package's HA tests and benchmarks.
func haShared(tb testing.TB) (bin, kubeconfig string, mgmt *mgmtcluster.Env) {
	tb.Helper()
	bin = keelBinary(tb) // outside the Once: it may end the test
	haOnce.Do(func() {
		if haTmp, haErr = os.MkdirTemp("", "keel-ha-"); haErr != nil {
			return
		}
		haBin = bin
		ctrllog.SetLogger(logr.Discard()) // the in-test management cluster's controller-runtime logs
		if haMgmt, haErr = mgmtcluster.Start(context.Background(), mgmtcluster.Options{Webhooks: true}); haErr != nil {
			return
		}
		var ctx context.Context
		ctx, haStopAPI = context.WithCancel(context.Background())
		haAPIDone = make(chan error, 1)
		go func() {
			haAPIDone <- server.RunClusterAPI(ctx, haMgmt.Config, server.ClusterAPIOptions{
				Webhooks: haMgmt.Webhooks, DataDir: filepath.Join(haTmp, "workload"), SimulateStep: 200 * time.Millisecond,
			})
		}()
		haKubecfg = filepath.Join(haTmp, "management.kubeconfig")
		haErr = haMgmt.WriteKubeconfig(haKubecfg)
	})
	if haErr != nil {
		tb.Fatal(haErr)
	}
	return haBin, haKubecfg, haMgmt
}

// freeAddr is a loopback address nothing listens on (yet).
func freeAddr(tb testing.TB) string {
	tb.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		tb.Fatal(err)
	}
	defer ln.Close()
	return ln.Addr().String()
}

// --- Git server ---

const haGitUser, haGitToken = "keel-bot", "ha-t0ken"

// gitServer is git http-backend behind basic auth on a fixed loopback
// address, so that it can be stopped and started again at the same URL.
type gitServer struct {
	tb   testing.TB
	addr string
	bare string
	h    http.Handler
	mu   sync.Mutex
	srv  *http.Server
}

func newHAGitServer(tb testing.TB) *gitServer {
	tb.Helper()
	execPath, err := exec.Command("git", "--exec-path").Output()
	if err != nil {
		tb.Fatal(err)
	}
	root := tb.TempDir()
	g := &gitServer{tb: tb, addr: freeAddr(tb), bare: filepath.Join(root, "clusters.git")}
	haGit(tb, ".", "init", "-q", "--bare", "-b", "main", g.bare)
	haGit(tb, g.bare, "config", "http.receivepack", "true")
	backend := &cgi.Handler{
		Path: filepath.Join(strings.TrimSpace(string(execPath)), "git-http-backend"),
		Env:  []string{"GIT_PROJECT_ROOT=" + root, "GIT_HTTP_EXPORT_ALL=1"},
		// receive-pack reports each push refused for a moved main (the
		// replicas' compare-and-swap at work) on stderr: kept out of the
		// test's output.
		Stderr: io.Discard,
	}
	g.h = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if u, p, ok := r.BasicAuth(); !ok || u != haGitUser || p != haGitToken {
			w.Header().Set("WWW-Authenticate", `Basic realm="git"`)
			http.Error(w, "unauthorised", http.StatusUnauthorized)
			return
		}
		backend.ServeHTTP(w, r)
	})
	g.start()
	tb.Cleanup(g.stop)
	return g
}

func (g *gitServer) URL() string { return "http://" + g.addr + "/clusters.git" }

func (g *gitServer) start() {
	g.tb.Helper()
	g.mu.Lock()
	defer g.mu.Unlock()
	var ln net.Listener
	var err error
	for deadline := time.Now().Add(10 * time.Second); ; {
		if ln, err = net.Listen("tcp", g.addr); err == nil || time.Now().After(deadline) {
			break
		}
		time.Sleep(100 * time.Millisecond)
	}
	if err != nil {
		g.tb.Fatalf("git server: %v", err)
	}
	g.srv = &http.Server{Handler: g.h, ReadHeaderTimeout: 10 * time.Second}
	go func() { _ = g.srv.Serve(ln) }()
}

// stop closes the listener and every connection: the server is down.
func (g *gitServer) stop() {
	g.mu.Lock()
	defer g.mu.Unlock()
	if g.srv != nil {
		_ = g.srv.Close()
		g.srv = nil
	}
}

// commits is the number of commits on the server's main.
func (g *gitServer) commits() int {
	g.tb.Helper()
	n, err := strconv.Atoi(haGit(g.tb, g.bare, "rev-list", "--count", "main"))
	if err != nil {
		g.tb.Fatal(err)
	}
	return n
}

// requestIDs counts the commits on the server's main per Keel-Request-Id.
func (g *gitServer) requestIDs() map[string]int {
	g.tb.Helper()
	out := haGit(g.tb, g.bare, "log", "main", "--format=%(trailers:key=Keel-Request-Id,valueonly,separator=%x2C)")
	ids := map[string]int{}
	for _, l := range strings.Split(out, "\n") {
		if l = strings.TrimSpace(l); l != "" {
			ids[l]++
		}
	}
	return ids
}

func haGit(tb testing.TB, dir string, args ...string) string {
	tb.Helper()
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	out, err := cmd.CombinedOutput()
	if err != nil {
		tb.Fatalf("git %v: %v\n%s", args, err, out)
	}
	return strings.TrimSpace(string(out))
}

// --- PostgreSQL ---

// pgServer is a throwaway PostgreSQL server run with Debian's binaries as
// the postgres user (root cannot run it), on a free loopback port.
type pgServer struct {
	tb   testing.TB
	bin  string
	dir  string
	port string
	uid  int
	gid  int
}

func newPGServer(tb testing.TB) *pgServer {
	tb.Helper()
	bin := "/usr/lib/postgresql/15/bin"
	if _, err := os.Stat(filepath.Join(bin, "pg_ctl")); err != nil {
		tb.Skip("PostgreSQL 15 server binaries are not installed")
	}
	u, err := user.Lookup("postgres")
	if err != nil {
		tb.Skip("no postgres user to run PostgreSQL as")
	}
	uid, _ := strconv.Atoi(u.Uid)
	gid, _ := strconv.Atoi(u.Gid)
	// Not under t.TempDir: its parents are private to root.
	dir, err := os.MkdirTemp("", "keel-ha-pg-")
	if err != nil {
		tb.Fatal(err)
	}
	tb.Cleanup(func() { os.RemoveAll(dir) })
	if err := os.Chown(dir, uid, gid); err != nil {
		tb.Fatal(err)
	}
	_, port, _ := net.SplitHostPort(freeAddr(tb))
	p := &pgServer{tb: tb, bin: bin, dir: dir, port: port, uid: uid, gid: gid}
	p.run("initdb", "-D", filepath.Join(dir, "data"), "-A", "trust", "-U", "postgres", "--no-sync")
	p.start()
	tb.Cleanup(func() { p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "stop", "-m", "immediate", "-w") })
	return p
}

func (p *pgServer) DSN() string {
	return "postgres://postgres@127.0.0.1:" + p.port + "/postgres?sslmode=disable"
}

func (p *pgServer) run(name string, args ...string) {
	p.tb.Helper()
	cmd := exec.Command(filepath.Join(p.bin, name), args...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uint32(p.uid), Gid: uint32(p.gid)}}
	cmd.Dir = p.dir
	if out, err := cmd.CombinedOutput(); err != nil {
		p.tb.Fatalf("%s %v: %v\n%s", name, args, err, out)
	}
}

func (p *pgServer) start() {
	p.tb.Helper()
	p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "-l", filepath.Join(p.dir, "log"), "-w", "start",
		"-o", "-p "+p.port+" -k "+p.dir+" -c listen_addresses=127.0.0.1 -c fsync=off")
}

// stop shuts the server down the way a restart by an operator does: it
// terminates every session.
func (p *pgServer) stop() {
	p.tb.Helper()
	p.run("pg_ctl", "-D", filepath.Join(p.dir, "data"), "stop", "-m", "fast", "-w")
}

// --- keel replicas ---

type replica struct {
	tb   testing.TB
	name string
	url  string
	cmd  *exec.Cmd
	log  string
	done chan struct{}
}

// haCluster is the set-up of one HA test.
type haCluster struct {
	tb       testing.TB
	git      *gitServer
	pg       *pgServer
	mgmt     *mgmtcluster.Env
	bin      string
	kubecfg  string
	ageKey   string
	replicas []*replica
	// args are a replica's flags beyond the common ones (nil: none).
	args func(name string) []string
}

func newHACluster(tb testing.TB, n int) *haCluster {
	tb.Helper()
	return newHAClusterWith(tb, n, nil)
}

// newHAClusterWith is newHACluster with args(name) added to replica name's
// `keel serve` flags.
func newHAClusterWith(tb testing.TB, n int, args func(name string) []string) *haCluster {
	tb.Helper()
	bin, kc, mgmt := haShared(tb)
	// Registered first, so it runs after the replicas stopped.
	tb.Cleanup(func() { deleteCAPIClusters(tb, mgmt) })
	id, err := age.GenerateX25519Identity()
	if err != nil {
		tb.Fatal(err)
	}
	h := &haCluster{tb: tb, git: newHAGitServer(tb), pg: newPGServer(tb), mgmt: mgmt, bin: bin, kubecfg: kc,
		ageKey: id.String() + "\n", args: args}
	for i := range n {
		h.replicas = append(h.replicas, h.start(fmt.Sprintf("keel-%d", i)))
	}
	return h
}

// start runs one `keel serve` replica with its own data folder and port.
// The replicas share keel's age identity (as an operator distributes it to
// every replica): each must decrypt what the others committed.
func (h *haCluster) start(name string) *replica {
	h.tb.Helper()
	data := filepath.Join(h.tb.TempDir(), name)
	if err := os.MkdirAll(data, 0o755); err != nil {
		h.tb.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(data, "age.key"), []byte(h.ageKey), 0o600); err != nil {
		h.tb.Fatal(err)
	}
	cmd := exec.Command(h.bin, "serve", "--data-dir", data, "--listen", "127.0.0.1:0",
		"--kubeconfig", h.kubecfg,
		"--database", h.pg.DSN(), "--git-remote", h.git.URL(), "--leader-elect",
		"--auth", "noauth", "--openstack-lookups", "given", "--log-level", "info")
	if h.args != nil {
		cmd.Args = append(cmd.Args, h.args(name)...)
	}
	cmd.Env = append(os.Environ(), "KEEL_GIT_USERNAME="+haGitUser, "KEEL_GIT_PASSWORD="+haGitToken)
	r := &replica{tb: h.tb, name: name, cmd: cmd, log: filepath.Join(data, "serve.log"), done: make(chan struct{})}
	// The log goes to a file (shown on failure): a child holding the
	// test's stderr would keep `go test` waiting if it outlived the test.
	logFile, err := os.Create(r.log)
	if err != nil {
		h.tb.Fatal(err)
	}
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		h.tb.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		h.tb.Fatal(err)
	}
	logFile.Close()
	go func() { _ = cmd.Wait(); close(r.done) }()
	h.tb.Cleanup(func() {
		r.stop()
		if h.tb.Failed() {
			b, _ := os.ReadFile(r.log)
			if len(b) > 20000 {
				b = b[len(b)-20000:]
			}
			h.tb.Logf("%s (pid %d) log tail:\n%s", r.name, cmd.Process.Pid, b)
		}
	})
	ready := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stdout)
		for sc.Scan() {
			if u, ok := strings.CutPrefix(sc.Text(), "keel: ready on "); ok {
				ready <- u
			}
		}
	}()
	select {
	case r.url = <-ready:
	case <-r.done:
		b, _ := os.ReadFile(r.log)
		h.tb.Fatalf("%s exited before it was ready:\n%s", name, b)
	case <-time.After(2 * time.Minute):
		h.tb.Fatalf("%s did not print its ready line", name)
	}
	return r
}

// stop ends the replica with SIGTERM (SIGKILL after 30 s).
func (r *replica) stop() {
	select {
	case <-r.done:
		return
	default:
	}
	_ = r.cmd.Process.Signal(syscall.SIGTERM)
	select {
	case <-r.done:
	case <-time.After(30 * time.Second):
		_ = r.cmd.Process.Kill()
		<-r.done
	}
}

// kill9 kills the replica at once: no Lease release, nothing flushed.
func (r *replica) kill9() {
	r.tb.Helper()
	if err := r.cmd.Process.Signal(syscall.SIGKILL); err != nil {
		r.tb.Fatal(err)
	}
	<-r.done
}

func (r *replica) alive() bool {
	select {
	case <-r.done:
		return false
	default:
		return true
	}
}

// holder is the Lease's holder identity ("" when none); keel's identity is
// host-pid-random.
func (h *haCluster) holder() string {
	var l coordinationv1.Lease
	if err := h.mgmt.Client.Get(context.Background(), client.ObjectKey{Namespace: kube.Namespace, Name: server.LeaseName}, &l); err != nil || l.Spec.HolderIdentity == nil {
		return ""
	}
	return *l.Spec.HolderIdentity
}

// leader is the live replica holding the Lease, nil when none does.
func (h *haCluster) leader() *replica {
	id := h.holder()
	for _, r := range h.replicas {
		if r.alive() && strings.Contains(id, fmt.Sprintf("-%d-", r.cmd.Process.Pid)) {
			return r
		}
	}
	return nil
}

// --- Magnum API ---

type apiResult struct {
	status    int
	body      []byte
	requestID string
}

func (r *replica) call(method, path string, body any) apiResult {
	r.tb.Helper()
	res, err := r.try(method, path, body)
	if err != nil {
		r.tb.Fatalf("%s %s %s: %v", r.name, method, path, err)
	}
	return res
}

func (r *replica) try(method, path string, body any) (apiResult, error) {
	var rd io.Reader
	if body != nil {
		b, _ := json.Marshal(body)
		rd = bytes.NewReader(b)
	}
	req, err := http.NewRequest(method, r.url+path, rd)
	if err != nil {
		return apiResult{}, err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Project-Id", "p-ha")
	c := http.Client{Timeout: 60 * time.Second}
	resp, err := c.Do(req)
	if err != nil {
		return apiResult{}, err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	return apiResult{status: resp.StatusCode, body: b, requestID: resp.Header.Get("X-Openstack-Request-Id")}, err
}

func templateBody(name string) map[string]any {
	return map[string]any{"name": name, "coe": "kubernetes", "image_id": "ubuntu-2204", "flavor_id": "m1.medium",
		"master_flavor_id": "m1.large", "external_network_id": "public", "network_driver": "calico",
		"labels": map[string]string{"kube_tag": "v1.33.4"}}
}

// createTemplate creates a template and returns its uuid and request id.
func (r *replica) createTemplate(name string) (string, string) {
	r.tb.Helper()
	res := r.call(http.MethodPost, "/v1/clustertemplates", templateBody(name))
	if res.status != http.StatusCreated {
		r.tb.Fatalf("%s: create template %s: %d %s", r.name, name, res.status, res.body)
	}
	var v struct{ UUID string }
	_ = json.Unmarshal(res.body, &v)
	return v.UUID, res.requestID
}

// createCluster creates a one-node cluster and returns its uuid and request id.
func (r *replica) createCluster(name, template string) (string, string) {
	r.tb.Helper()
	res := r.call(http.MethodPost, "/v1/clusters", map[string]any{"name": name, "cluster_template_id": template, "master_count": 1, "node_count": 1})
	if res.status != http.StatusAccepted {
		r.tb.Fatalf("%s: create cluster %s: %d %s", r.name, name, res.status, res.body)
	}
	var v struct{ UUID string }
	_ = json.Unmarshal(res.body, &v)
	return v.UUID, res.requestID
}

// has reports whether GET path answers 200 on this replica.
func (r *replica) has(path string) bool {
	res, err := r.try(http.MethodGet, path, nil)
	return err == nil && res.status == http.StatusOK
}

type clusterView struct {
	UUID    string `json:"uuid"`
	Status  string `json:"status"`
	StackID string `json:"stack_id"`
}

func (r *replica) cluster(uuid string) (clusterView, bool) {
	res, err := r.try(http.MethodGet, "/v1/clusters/"+uuid, nil)
	var v clusterView
	if err != nil || res.status != http.StatusOK || json.Unmarshal(res.body, &v) != nil {
		return v, false
	}
	return v, true
}

// haWait polls cond every 50 ms until it holds or d passes.
func haWait(tb testing.TB, d time.Duration, what string, cond func() bool) time.Duration {
	tb.Helper()
	start := time.Now()
	for !cond() {
		if time.Since(start) > d {
			tb.Fatalf("timed out after %s waiting for %s", d, what)
		}
		time.Sleep(50 * time.Millisecond)
	}
	return time.Since(start)
}

// sqlPing reports whether the read model's PostgreSQL answers.
func sqlPing(dsn string) bool {
	db, err := sql.Open("pgx", dsn)
	if err != nil {
		return false
	}
	defer db.Close()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	return db.PingContext(ctx) == nil
}

// deleteCAPIClusters deletes the Cluster API clusters a test left on the
// shared management cluster and waits for Cluster API to remove them: each
// would otherwise keep its simulated servers and workload API server
// running, and Cluster API's controllers busy, for the rest of the package.
func deleteCAPIClusters(tb testing.TB, mgmt *mgmtcluster.Env) {
	ctx := context.Background()
	if err := mgmt.Client.DeleteAllOf(ctx, &clusterv1.Cluster{}, client.InNamespace(kube.Namespace)); err != nil {
		tb.Logf("deleting the test's Cluster API clusters: %v", err)
		return
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		var l clusterv1.ClusterList
		err := mgmt.Client.List(ctx, &l, client.InNamespace(kube.Namespace))
		if err == nil && len(l.Items) == 0 {
			return
		}
		if time.Now().After(deadline) {
			tb.Logf("%d Cluster API clusters still deleting after 3 minutes (%v)", len(l.Items), err)
			return
		}
		time.Sleep(time.Second)
	}
}
