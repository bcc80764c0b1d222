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

// keel is one `keel serve`: on the embedded management cluster, or with
// -split on the management cluster of a `keel management` (mgmt).
type keel struct {
	bin, dataDir, listen, apiServers string
	profiler                         string // keel serve --profiler-address
	workers                          int    // keel serve --reconcile-workers
	step                             time.Duration
	cmd                              *exec.Cmd
	exited                           chan error
	mgmt                             *management // -split; nil: keel's embedded default
}

func (k *keel) url() string { return "http://" + k.listen }

// kubeconfig is the management cluster's admin kubeconfig.
func (k *keel) kubeconfig() string {
	if k.mgmt != nil {
		return k.mgmt.kubeconfig()
	}
	return filepath.Join(k.dataDir, "management.kubeconfig")
}

// pids are the processes whose memory and CPU are measured, each with its
// children (the management cluster's kube-apiserver, etcd and garbage
// collector).
func (k *keel) pids() []int {
	if k.mgmt != nil {
		return []int{k.cmd.Process.Pid, k.mgmt.cmd.Process.Pid}
	}
	return []int{k.cmd.Process.Pid}
}

func (k *keel) start() error {
	log, err := os.OpenFile(filepath.Join(filepath.Dir(k.dataDir), "keel.log"), os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o600)
	if err != nil {
		return err
	}
	args := []string{"serve", "--data-dir", k.dataDir, "--listen", k.listen,
		"--log-level", "warn", "--max-clusters-per-project", "1000",
		"--profiler-address", k.profiler, "--reconcile-workers", strconv.Itoa(k.workers)}
	if k.mgmt != nil {
		args = append(args, "--kubeconfig", k.kubeconfig(), "--auth", "noauth", "--openstack-lookups", "given")
	} else {
		args = append(args, "--simulate-step", k.step.String(), "--workload-apiservers", k.apiServers)
	}
	k.cmd = exec.Command(k.bin, args...) //nolint:gosec // the bench's own build
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
func (k *keel) stop() error { return stopProcess("keel", k.cmd, k.exited) }

// stopProcess sends cmd SIGTERM and waits for it to exit (exited), killing
// it after 2 minutes.
func stopProcess(name string, cmd *exec.Cmd, exited chan error) error {
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		return err
	}
	select {
	case err := <-exited:
		if err != nil {
			fmt.Fprintf(os.Stderr, "%s's exit after SIGTERM: %v\n", name, err)
		}
		return nil
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		return fmt.Errorf("%s did not stop within 2 minutes of SIGTERM (killed: %v)", name, <-exited)
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
	if err := heapProfile(k.bin, k.profiler, filepath.Join(dir, fmt.Sprintf("heap-%d.pb.gz", n)), "keel's heap"); err != nil {
		return err
	}
	if k.mgmt == nil {
		return nil
	}
	return heapProfile(k.bin, k.mgmt.profiler, filepath.Join(dir, fmt.Sprintf("management-heap-%d.pb.gz", n)), "keel management's heap (Cluster API, simulated OpenStack and workload clusters)")
}

// heapProfile saves the heap profile served on profiler at path and
// prints its largest in-use allocation sites under label.
func heapProfile(bin, profiler, path, label string) error {
	resp, err := http.Get("http://" + profiler + "/debug/pprof/heap")
	if err != nil {
		return err
	}
	defer resp.Body.Close()
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
	out, err := exec.Command("go", "tool", "pprof", "-top", "-nodecount=12", "-sample_index=inuse_space", bin, path).CombinedOutput()
	if err != nil {
		return fmt.Errorf("go tool pprof: %v: %s", err, out)
	}
	fmt.Printf("%s (%s):\n\n```\n%s```\n\n", label, path, out)
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
