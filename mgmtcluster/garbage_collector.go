package mgmtcluster

import (
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// gcUser is the user kube-controller-manager authenticates as. In the
// system:masters group: the garbage collector lists, watches and deletes
// every kind, custom resources included.
const gcUser = "system:kube-controller-manager"

// garbageCollector is a kube-controller-manager running only Kubernetes'
// garbage collector. The embedded management cluster runs no
// kube-controller-manager otherwise, so without it the objects Cluster API
// leaves to the garbage collector (owned by deleted objects) would stay.
type garbageCollector struct {
	cmd *exec.Cmd
	// done is closed when the process has exited; stopping when stop asked
	// it to, so that an exit is told from a crash.
	done, stopping chan struct{}
	// tmp is removed at stop (no etcd data dir: nothing to keep).
	tmp string
}

// gcDir is where kube-controller-manager's kubeconfig and log live for a
// management cluster whose etcd keeps its data in etcdDataDir: next to it,
// so that KillOrphans finds an orphaned one by its --kubeconfig.
func gcDir(etcdDataDir string) string {
	return filepath.Join(filepath.Dir(etcdDataDir), "kube-controller-manager")
}

// startGarbageCollector starts kube-controller-manager from bin with the
// garbagecollector controller only, as a cluster-admin user of env.
func startGarbageCollector(env *envtest.Environment, bin, etcdDataDir string, progress io.Writer) (*garbageCollector, error) {
	gc := &garbageCollector{done: make(chan struct{}), stopping: make(chan struct{})}
	dir := ""
	if etcdDataDir != "" {
		abs, err := filepath.Abs(etcdDataDir)
		if err != nil {
			return nil, err
		}
		dir = gcDir(abs)
		if err := os.MkdirAll(dir, 0o700); err != nil {
			return nil, err
		}
	} else {
		var err error
		if dir, err = os.MkdirTemp("", "keel-kcm-"); err != nil {
			return nil, err
		}
		gc.tmp = dir
	}
	u, err := env.ControlPlane.AddUser(envtest.User{Name: gcUser, Groups: []string{"system:masters"}}, env.Config)
	if err != nil {
		gc.cleanup()
		return nil, fmt.Errorf("creating the kube-controller-manager user: %w", err)
	}
	kc, err := u.KubeConfig()
	if err != nil {
		gc.cleanup()
		return nil, err
	}
	kubeconfig := filepath.Join(dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, kc, 0o600); err != nil {
		gc.cleanup()
		return nil, err
	}
	logPath := filepath.Join(dir, "kube-controller-manager.log")
	logFile, err := os.Create(logPath)
	if err != nil {
		gc.cleanup()
		return nil, err
	}
	gc.cmd = exec.Command(filepath.Join(bin, "kube-controller-manager"),
		"--kubeconfig="+kubeconfig,
		"--controllers=garbagecollector",
		"--leader-elect=false",
		// No serving: nothing scrapes its metrics or health endpoints.
		"--secure-port=0",
		"--use-service-account-credentials=false",
	)
	gc.cmd.Stdout, gc.cmd.Stderr = logFile, logFile
	if err := gc.cmd.Start(); err != nil {
		_ = logFile.Close()
		gc.cleanup()
		return nil, fmt.Errorf("starting kube-controller-manager: %w", err)
	}
	go func() {
		err := gc.cmd.Wait()
		_ = logFile.Close()
		select {
		case <-gc.stopping:
		default:
			// Keep serving: the API works without it, only leftovers stay.
			fmt.Fprintf(progress, "keel: kube-controller-manager (garbage collector) exited: %v; see %s\n", err, logPath)
		}
		close(gc.done)
	}()
	return gc, nil
}

// stop terminates kube-controller-manager (SIGTERM, then SIGKILL after 10 s).
func (gc *garbageCollector) stop() error {
	if gc == nil {
		return nil
	}
	defer gc.cleanup()
	close(gc.stopping)
	return Terminate(gc.cmd.Process, gc.done, "kube-controller-manager", 10*time.Second)
}

func (gc *garbageCollector) cleanup() {
	if gc.tmp != "" {
		_ = os.RemoveAll(gc.tmp)
	}
}
