package main

import (
	"bufio"
	"context"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openkeel/keel/mgmtcluster"
)

// The image's binary runs as distroless's nonroot user (65532) with
// nothing writable but its data dir: the binary in a read-only folder, HOME
// read-only, no shell, no Kubernetes environment. `keel serve` against a
// real management cluster (given by kubeconfig: nothing simulated) starts,
// creates its repository, read model and age key in the data dir, and
// answers /healthz and /readyz.
func TestKeelServesAsNonRootWithOnlyItsDataDirWritable(t *testing.T) {
	requireRoot(t)
	const uid, gid = 65532, 65532

	// A folder of our own, traversable by uid 65532 (t.TempDir's are 0700).
	root, err := os.MkdirTemp("", "keel-nonroot-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = os.RemoveAll(root) })
	binDir, home, data := filepath.Join(root, "bin"), filepath.Join(root, "home"), filepath.Join(root, "data")
	for _, d := range []string{binDir, home, data} {
		if err := os.Mkdir(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	bin := buildImageBinary(t, binDir)
	for _, p := range []string{root, binDir, home, bin} {
		if err := os.Chmod(p, 0o555); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Chown(data, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(data, 0o700); err != nil {
		t.Fatal(err)
	}

	env, err := mgmtcluster.Start(context.Background(), mgmtcluster.Options{})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { _ = env.Stop() })
	kc := filepath.Join(root, "kubeconfig") // readable by keel only, as a mounted Secret would be
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := env.WriteKubeconfig(kc); err != nil {
		t.Fatal(err)
	}
	if err := os.Chown(kc, uid, gid); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(root, 0o555); err != nil {
		t.Fatal(err)
	}

	cmd := exec.Command(bin, "serve", "--kubeconfig", kc, "--data-dir", data, "--listen", "127.0.0.1:0",
		"--auth", "noauth", "--openstack-lookups", "given", "--log-level", "warn")
	cmd.Dir = "/"
	cmd.Env = []string{"HOME=" + home, "PATH=/nonexistent", "TMPDIR=" + data}
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: uid, Gid: gid}}
	logFile, err := os.CreateTemp(t.TempDir(), "serve-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logFile
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	t.Cleanup(func() {
		_ = cmd.Process.Signal(syscall.SIGTERM)
		select {
		case err := <-exited:
			if err != nil {
				t.Logf("keel serve exited: %v", err)
			}
		case <-time.After(60 * time.Second):
			_ = cmd.Process.Kill()
		}
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("keel serve log:\n%s", b)
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
		exited <- cmd.Wait()
	}()
	var url string
	select {
	case url = <-ready:
	case err := <-exited:
		exited <- err
		t.Fatalf("keel serve as uid %d exited before it was ready: %v", uid, err)
	case <-time.After(3 * time.Minute):
		t.Fatal("keel serve did not print its ready line")
	}

	for _, path := range []string{"/healthz", "/readyz"} {
		resp, err := http.Get(url + path)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != http.StatusOK {
			t.Errorf("GET %s: %d, want 200", path, resp.StatusCode)
		}
	}
	for _, name := range []string{"repo.git", "keel.db", "age.key"} {
		st, err := os.Stat(filepath.Join(data, name))
		if err != nil {
			t.Errorf("%s was not created in the data dir: %v", name, err)
			continue
		}
		if owner := st.Sys().(*syscall.Stat_t).Uid; owner != uid {
			t.Errorf("%s is owned by uid %d, want %d", name, owner, uid)
		}
	}
}
