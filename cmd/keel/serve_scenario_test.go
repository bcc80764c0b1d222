package main

import (
	"bufio"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"
)

// keel serve on the embedded default (Cluster API's own controllers, with
// simulated OpenStack servers and workload clusters), driven by the real
// `openstack coe` CLI through hack/coe-scenario.sh: create, resize, update,
// nodegroups, upgrade and delete, each waited for through the statuses keel
// derives from the real controllers. Then SIGTERM stops it (and the
// kube-apiserver and etcd it started), and a restart on the same data dir
// still has the cluster, which completes.
func TestServeEmbeddedWithOpenstackCLI(t *testing.T) {
	if _, err := exec.LookPath("openstack"); err != nil {
		if os.Getenv("KEEL_REQUIRE_OPENSTACK_CLI") == "1" {
			t.Fatal("the openstack CLI is not installed and KEEL_REQUIRE_OPENSTACK_CLI=1")
		}
		t.Skip("the openstack CLI (python3-openstackclient, python3-magnumclient) is not installed")
	}
	dir := t.TempDir()
	bin := keelBinary(t)
	data := filepath.Join(dir, "data")

	url, stop := startServe(t, bin, data)
	run := func(name string, args ...string) string {
		t.Helper()
		cmd := exec.Command(name, args...)
		out, err := cmd.CombinedOutput()
		if err != nil {
			t.Fatalf("%s %v: %v\n%s", name, args, err, out)
		}
		return string(out)
	}
	run("bash", "../../hack/coe-scenario.sh", url, filepath.Join(dir, "scenario"))

	coe := func(args ...string) string {
		return run("openstack", append([]string{"--os-auth-type", "none", "--os-endpoint", url + "/v1", "coe"}, args...)...)
	}
	coe("cluster", "template", "create", "keep-t", "--coe", "kubernetes", "--image", "img", "--external-network", "public",
		"--flavor", "m1.small", "--master-flavor", "m1.small", "--network-driver", "calico", "--labels", "kube_tag=v1.33.4")
	coe("cluster", "create", "keep", "--cluster-template", "keep-t", "--node-count", "1")
	stop()

	url, stop = startServe(t, bin, data)
	defer stop()
	// Polled through the API (each run of the CLI costs a second or two of
	// CPU); the CLI shows the end state.
	deadline := time.Now().Add(5 * time.Minute)
	for {
		status, reason := clusterStatus(t, url, "keep")
		if status == "CREATE_COMPLETE" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("after a restart the cluster is %s (%s), want CREATE_COMPLETE", status, reason)
		}
		time.Sleep(time.Second)
	}
	if status := strings.TrimSpace(coe("cluster", "show", "keep", "-f", "value", "-c", "status")); status != "CREATE_COMPLETE" {
		t.Fatalf("openstack coe cluster show: %s, want CREATE_COMPLETE", status)
	}
}

// clusterStatus is a cluster's status and status_reason, from the API.
func clusterStatus(t *testing.T, url, name string) (string, string) {
	t.Helper()
	resp, err := http.Get(url + "/v1/clusters/" + name)
	if err != nil {
		return err.Error(), ""
	}
	defer resp.Body.Close()
	var c struct {
		Status       string `json:"status"`
		StatusReason string `json:"status_reason"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&c); err != nil {
		return resp.Status, err.Error()
	}
	return c.Status, c.StatusReason
}

// startServe runs keel serve and returns its URL and a function that stops
// it with SIGTERM and checks it exited cleanly, leaving no etcd behind.
func startServe(t *testing.T, bin, data string) (string, func()) {
	t.Helper()
	cmd, url := launchServe(t, bin, "serve", "--data-dir", data, "--listen", "127.0.0.1:0", "--simulate-step", "200ms", "--log-level", "warn")
	stopped := false
	stop := func() {
		if stopped {
			return
		}
		stopped = true
		_ = cmd.Process.Signal(syscall.SIGTERM)
		done := make(chan error, 1)
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				t.Errorf("keel serve exited with %v after SIGTERM", err)
			}
		case <-time.After(90 * time.Second):
			_ = cmd.Process.Kill()
			t.Fatal("keel serve did not stop within 90 s of SIGTERM")
		}
		if pids := etcdOn(filepath.Join(data, "etcd")); len(pids) > 0 {
			t.Errorf("etcd still running on the data dir after keel stopped: %v", pids)
		}
	}
	t.Cleanup(stop) // also when the test fails half-way
	return url, stop
}

func etcdOn(dir string) []string {
	var pids []string
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		b, err := os.ReadFile(filepath.Join("/proc", e.Name(), "cmdline"))
		if err == nil && strings.Contains(string(b), "--data-dir="+dir) {
			pids = append(pids, e.Name())
		}
	}
	return pids
}

// launchServe starts keel with args and waits for its ready line; keel's
// log goes to a file, shown if the test fails: a child holding the test's
// own stderr would keep `go test` waiting if it outlived the test.
func launchServe(t *testing.T, bin string, args ...string) (*exec.Cmd, string) {
	t.Helper()
	cmd := exec.Command(bin, args...)
	logFile, err := os.CreateTemp(t.TempDir(), "serve-*.log")
	if err != nil {
		t.Fatal(err)
	}
	cmd.Stderr = logFile
	t.Cleanup(func() {
		if t.Failed() {
			b, _ := os.ReadFile(logFile.Name())
			t.Logf("keel serve log:\n%s", b)
		}
	})
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		t.Fatal(err)
	}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
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
	case url := <-ready:
		return cmd, url
	case <-time.After(5 * time.Minute):
		_ = cmd.Process.Kill()
		t.Fatal("keel serve did not print its ready line")
	}
	return nil, ""
}
