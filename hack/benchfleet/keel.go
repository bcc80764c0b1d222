package main

import (
	"errors"
	"fmt"
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
		"--workload-apiservers", k.apiServers)
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
	case <-k.exited:
		return nil
	case <-time.After(2 * time.Minute):
		_ = k.cmd.Process.Kill()
		<-k.exited
		return errors.New("keel did not stop within 2 minutes of SIGTERM")
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
