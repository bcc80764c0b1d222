package main

import (
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"syscall"
	"time"
)

// keel is one `keel serve` on the embedded management cluster.
type keel struct {
	bin, dataDir, listen, apiServers string
	profiler                         string // keel serve --profiler-address
	workers                          int    // keel serve --reconcile-workers
	step                             time.Duration
	cmd                              *exec.Cmd
	exited                           chan error
}

func (k *keel) url() string { return "http://" + k.listen }

func (k *keel) start() error {
	log, err := os.OpenFile(filepath.Join(filepath.Dir(k.dataDir), "keel.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	k.cmd = exec.Command(k.bin, "serve", "--data-dir", k.dataDir, "--listen", k.listen, //nolint:gosec // the bench's own build
		"--simulate-step", k.step.String(), "--log-level", "warn", "--max-clusters-per-project", "1000",
		"--workload-apiservers", k.apiServers, "--profiler-address", k.profiler,
		"--reconcile-workers", strconv.Itoa(k.workers))
	k.cmd.Stdout, k.cmd.Stderr = log, log
	if err := k.cmd.Start(); err != nil {
		return err
	}
	k.exited = make(chan error, 1)
	go func() { k.exited <- k.cmd.Wait(); _ = log.Close() }()
	return nil
}

// waitAnswers is how long keel took to answer the Magnum API.
func (k *keel) waitAnswers(a *api, limit time.Duration) (time.Duration, error) {
	start := time.Now()
	for time.Since(start) < limit {
		if _, err := a.do(http.MethodGet, "/v1/clusters?limit=1", adminProject, "1.10", nil, nil); err == nil {
			return time.Since(start), nil
		}
		select {
		case err := <-k.exited:
			return 0, fmt.Errorf("keel exited: %v (see keel.log)", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	return 0, errors.New("keel did not answer within " + limit.String())
}

// stop sends SIGTERM, as systemd or a kubelet would, and waits.
func (k *keel) stop() error {
	if err := k.cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-k.exited:
		if err != nil {
			fmt.Fprintln(os.Stderr, "keel's exit after SIGTERM:", err)
		}
		return nil
	case <-time.After(2 * time.Minute):
		_ = k.cmd.Process.Kill()
		return fmt.Errorf("keel did not stop within 2 minutes of SIGTERM (killed: %v)", <-k.exited)
	}
}

func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}

// heapProfile saves keel's heap profile as dir/heap-<n>.pb.gz and prints
// its largest in-use allocation sites (go tool pprof -top), so that keel's
// memory can be told apart: Cluster API's caches, the light workload
// clusters, keel's own.
func (k *keel) heapProfile(dir string, n int) error {
	resp, err := http.Get("http://" + k.profiler + "/debug/pprof/heap")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	path := filepath.Join(dir, fmt.Sprintf("heap-%d.pb.gz", n))
	f, err := os.Create(path)
	if err != nil {
		return err
	}
	if _, err := io.Copy(f, resp.Body); err != nil {
		_ = f.Close()
		return err
	}
	if err := f.Close(); err != nil {
		return err
	}
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=12", "-sample_index=inuse_space", k.bin, path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go tool pprof: %v: %s", err, out)
	}
	fmt.Printf("keel's heap (%s):\n\n```\n%s```\n\n", path, out)
	return nil
}

// dirBytes is the size of the files under dir.
func dirBytes(dir string) int64 {
	var n int64
	_ = filepath.Walk(dir, func(_ string, info os.FileInfo, err error) error {
		if err == nil && !info.IsDir() {
			n += info.Size()
		}
		return nil
	})
	return n
}

// repoSizes is the repository's size as keel keeps it, and after `git gc`
// of a copy (keel's own repository is left as it is).
func repoSizes(dataDir string) (before, after int64, err error) {
	repo := filepath.Join(dataDir, "repo.git")
	before = dirBytes(repo)
	tmp, err := os.MkdirTemp("", "benchfleet-gc-")
	if err != nil {
		return 0, 0, err
	}
	defer os.RemoveAll(tmp)
	if out, err := exec.Command("cp", "-a", repo, tmp).CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("copying the repository: %v: %s", err, out)
	}
	gc := exec.Command("git", "gc", "--quiet")
	gc.Dir = filepath.Join(tmp, "repo.git")
	if out, err := gc.CombinedOutput(); err != nil {
		return 0, 0, fmt.Errorf("git gc: %v: %s", err, out)
	}
	return before, dirBytes(filepath.Join(tmp, "repo.git")), nil
}

// readModelBytes is the SQLite read model with its write-ahead log.
func readModelBytes(dataDir string) int64 {
	var n int64
	for _, f := range []string{"keel.db", "keel.db-wal", "keel.db-shm"} {
		if st, err := os.Stat(filepath.Join(dataDir, f)); err == nil {
			n += st.Size()
		}
	}
	return n
}
