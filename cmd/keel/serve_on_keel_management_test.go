package main

import (
	"bytes"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"syscall"
	"testing"
	"time"
)

// `keel management` runs the embedded default's management cluster, Cluster
// API and the simulators in a process of their own; a `keel serve
// --kubeconfig` beside it takes a cluster to CREATE_COMPLETE through them,
// as on the embedded default. Once keel stopped, SIGTERM stops the
// management process cleanly, with its etcd.
func TestServeOnKeelManagementCompletesACluster(t *testing.T) {
	bin, dir := keelBinary(t), t.TempDir()
	mgmtDir := filepath.Join(dir, "management")
	mgmt, exited := launchManagement(t, bin, mgmtDir)

	serve, url := launchServe(t, bin, "serve", "--data-dir", filepath.Join(dir, "keel"), "--listen", "127.0.0.1:0",
		"--kubeconfig", filepath.Join(mgmtDir, "management.kubeconfig"), "--auth", "noauth", "--openstack-lookups", "given",
		"--log-level", "warn")
	stopServe := sync.OnceFunc(func() { _ = serve.Process.Signal(syscall.SIGTERM); _ = serve.Wait() })
	t.Cleanup(stopServe)
	post(t, url+"/v1/clustertemplates", map[string]any{"name": "t", "coe": "kubernetes", "image_id": "img",
		"flavor_id": "m1.small", "master_flavor_id": "m1.small", "external_network_id": "public",
		"network_driver": "calico", "labels": map[string]string{"kube_tag": "v1.33.4"}}, http.StatusCreated)
	post(t, url+"/v1/clusters", map[string]any{"name": "c", "cluster_template_id": "t", "master_count": 1, "node_count": 1}, http.StatusAccepted)
	for deadline := time.Now().Add(5 * time.Minute); ; time.Sleep(time.Second) {
		status, reason := clusterStatus(t, url, "c")
		if status == "CREATE_COMPLETE" {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the cluster is %s (%s) after 5 minutes, want CREATE_COMPLETE", status, reason)
		}
	}

	// keel first, as a deployment stops its clients before the cluster they
	// watch (the kube-apiserver would otherwise wait for their watches).
	stopServe()
	if err := mgmt.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Errorf("keel management exited with %v after SIGTERM", err)
		}
	case <-time.After(90 * time.Second):
		t.Fatal("keel management did not stop within 90 s of SIGTERM")
	}
	if pids := etcdOn(filepath.Join(mgmtDir, "etcd")); len(pids) > 0 {
		t.Errorf("etcd still running on the data dir after keel management stopped: %v", pids)
	}
}

// launchManagement starts `keel management` and waits for the kubeconfig it
// writes once the management cluster answers; its log is shown if the test
// fails.
func launchManagement(t *testing.T, bin, data string) (*exec.Cmd, chan error) {
	t.Helper()
	logPath := filepath.Join(t.TempDir(), "management.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command(bin, "management", "--data-dir", data, "--simulate-step", "200ms", "--log-level", "warn")
	cmd.Stdout, cmd.Stderr = logFile, logFile
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited, done := make(chan error, 1), make(chan struct{})
	go func() { exited <- cmd.Wait(); _ = logFile.Close(); close(done) }()
	t.Cleanup(func() {
		select {
		case <-done:
		default:
			_ = cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-done:
			case <-time.After(90 * time.Second):
				_ = cmd.Process.Kill()
			}
		}
		if t.Failed() {
			b, _ := os.ReadFile(logPath)
			t.Logf("keel management log:\n%s", b)
		}
	})
	for deadline := time.Now().Add(5 * time.Minute); time.Now().Before(deadline); {
		if _, err := os.Stat(filepath.Join(data, "management.kubeconfig")); err == nil {
			return cmd, exited
		}
		select {
		case err := <-exited:
			t.Fatalf("keel management exited before its management cluster was up: %v", err)
		case <-time.After(200 * time.Millisecond):
		}
	}
	t.Fatal("keel management wrote no kubeconfig within 5 minutes")
	return nil, nil
}

func post(t *testing.T, url string, body any, want int) {
	t.Helper()
	b, _ := json.Marshal(body)
	resp, err := http.Post(url, "application/json", bytes.NewReader(b))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != want {
		var msg bytes.Buffer
		_, _ = msg.ReadFrom(resp.Body)
		t.Fatalf("POST %s: %d %s, want %d", url, resp.StatusCode, msg.String(), want)
	}
}
