package capo

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openkeel/keel/mgmtcluster"
)

// process is one provider's manager running on the host.
type process struct {
	name, log string
	cmd       *exec.Cmd
	done      chan struct{}
	err       error
}

// startCAPO runs CAPO's manager: no leader election (one replica), its
// metrics off, its health endpoint and webhook server on free ports, the
// webhook serving certificate registered by installWebhooks.
func startCAPO(ctx context.Context, bin, dir, kubeconfig string, o Options, w *envtest.WebhookInstallOptions) (*process, error) {
	health, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := append([]string{
		"--namespace=" + o.Namespace,
		"--leader-elect=false",
		"--diagnostics-address=0",
		"--insecure-diagnostics",
		"--health-addr=" + health,
		"--webhook-port=" + strconv.Itoa(w.LocalServingPort),
		"--webhook-cert-dir=" + w.LocalServingCertDir,
	}, o.ExtraArgs...)
	return start(ctx, "capo", bin, dir, kubeconfig, health, args)
}

// startORC runs ORC's manager, which resolves the ORC Images a machine's
// image may name (CAPO's imageRef) in Glance.
func startORC(ctx context.Context, bin, dir, kubeconfig, namespace string) (*process, error) {
	health, err := freeAddr()
	if err != nil {
		return nil, err
	}
	args := []string{
		"--namespace=" + namespace,
		"--leader-elect=false",
		"--metrics-bind-address=0",
		"--health-probe-bind-address=" + health,
	}
	return start(ctx, "orc", bin, dir, kubeconfig, health, args)
}

// start runs a manager with the kubeconfig, its output in dir/NAME.log,
// and waits until its /readyz answers 200 (the webhook server serves, for
// CAPO). The child gets SIGTERM if this process dies, so that a killed
// test leaves no manager behind.
func start(ctx context.Context, name, bin, dir, kubeconfig, health string, args []string) (*process, error) {
	logPath := filepath.Join(dir, name+".log")
	logf, err := os.Create(logPath)
	if err != nil {
		return nil, err
	}
	cmd := exec.Command(bin, args...) //nolint:gosec // keel's own build of the pinned module (hack/capo.sh)
	cmd.Env = append(os.Environ(), "KUBECONFIG="+kubeconfig)
	cmd.Stdout, cmd.Stderr = logf, logf
	cmd.SysProcAttr = sysProcAttr()
	if err := cmd.Start(); err != nil {
		_ = logf.Close()
		return nil, fmt.Errorf("starting %s: %w", name, err)
	}
	p := &process{name: name, log: logPath, cmd: cmd, done: make(chan struct{})}
	go func() {
		p.err = cmd.Wait()
		_ = logf.Close()
		close(p.done)
	}()
	if err := p.waitReady(ctx, "http://"+health+"/readyz"); err != nil {
		_ = p.stop()
		return nil, err
	}
	return p, nil
}

// readyTimeout bounds a manager's start: caches of a few kinds on a
// loaded 2-core machine.
const readyTimeout = 2 * time.Minute

func (p *process) waitReady(ctx context.Context, url string) error {
	deadline := time.Now().Add(readyTimeout)
	hc := &http.Client{Timeout: 2 * time.Second}
	for time.Now().Before(deadline) {
		req, _ := http.NewRequestWithContext(ctx, http.MethodGet, url, nil)
		if resp, err := hc.Do(req); err == nil {
			_ = resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				return nil
			}
		}
		select {
		case <-p.done:
			return fmt.Errorf("%s exited (%v); see %s", p.name, p.err, p.log)
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(250 * time.Millisecond):
		}
	}
	return fmt.Errorf("%s not ready after %s; see %s", p.name, readyTimeout, p.log)
}

// stop sends SIGTERM (controller-runtime stops its controllers), then
// SIGKILL after 15 s.
func (p *process) stop() error {
	select {
	case <-p.done:
		return nil // exited already; its log says why
	default:
	}
	return mgmtcluster.Terminate(p.cmd.Process, p.done, p.name, 15*time.Second)
}
