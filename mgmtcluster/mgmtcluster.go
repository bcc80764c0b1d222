// Package mgmtcluster is keel's embedded management cluster (the product
// feature behind `keel serve` without --kubeconfig): the kube-apiserver and
// etcd built by hack/testbin.sh, driven by controller-runtime's envtest, with
// the Cluster API CRDs (core, kubeadm bootstrap, kubeadm control plane) and
// the CAPO CRDs read from their Go modules (sigs.k8s.io/cluster-api and
// sigs.k8s.io/cluster-api-provider-openstack) at the versions keel is built
// with, so that the CRDs always match the typed APIs keel compiles against. Integration tests and `keel serve`'s embedded
// management cluster both start it through this package (tests through
// internal/testenv).
package mgmtcluster

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime/debug"
	"strings"
	"time"

	"golang.org/x/mod/module"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/mgmtcluster/binaries"
)

// CAPIModule is the module whose config/crd/bases folders hold the Cluster
// API CRDs.
const CAPIModule = "sigs.k8s.io/cluster-api"

// CAPOModule is the module whose config/crd/bases folder holds the CAPO
// CRDs.
const CAPOModule = "sigs.k8s.io/cluster-api-provider-openstack"

// Options configure a management cluster.
type Options struct {
	// EtcdDataDir keeps etcd's data across restarts; empty means a temporary
	// folder removed at Stop (tests).
	EtcdDataDir string
	// Progress receives build progress when the binaries must be built.
	Progress io.Writer
	// CAPIDir and CAPOCRDDir override where the CRDs are read from.
	CAPIDir, CAPOCRDDir string
	// Webhooks installs Cluster API's admission webhooks (core, kubeadm
	// bootstrap, kubeadm control plane) and CRD conversion webhooks,
	// pointing at a local webhook server (Env.Webhooks) that
	// mgmtcluster/clusterapi serves. Off by default: with failurePolicy Fail,
	// no Cluster API object can be written until that server runs, and
	// tests that only need keel's applies run no Cluster API.
	Webhooks bool
	// GarbageCollector runs kube-controller-manager with only its garbage
	// collector, which deletes the objects whose owners are gone (what
	// Cluster API leaves to it after a cluster delete). Off for test
	// clusters that run no Cluster API, to spare CI a process.
	GarbageCollector bool
}

// Env is a running management cluster.
type Env struct {
	Config     *rest.Config
	Client     client.Client
	KubeConfig []byte
	// Webhooks is where the installed webhook configurations send their
	// requests (Options.Webhooks), nil without them.
	Webhooks *WebhookServing
	env      *envtest.Environment
	gc       *garbageCollector
}

// WebhookServing is the local address and serving certificate of the webhook
// server the apiserver calls: envtest picked a free port and generated a CA
// and a certificate for it.
type WebhookServing struct {
	Host    string
	Port    int
	CertDir string // tls.crt and tls.key
}

// Start builds the binaries if needed, starts kube-apiserver and etcd,
// installs the CRDs, creates the magnum-system namespace and, with
// Options.GarbageCollector, starts kube-controller-manager's garbage
// collector.
func Start(ctx context.Context, o Options) (*Env, error) {
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	bin, err := binaries.Ensure(ctx, o.Progress)
	if err != nil {
		return nil, err
	}
	crdDirs, err := CRDDirs(o)
	if err != nil {
		return nil, err
	}
	crds, err := readCRDs(crdDirs)
	if err != nil {
		return nil, err
	}
	env := &envtest.Environment{
		BinaryAssetsDirectory:    bin,
		CRDs:                     crds,
		Scheme:                   kube.NewScheme(),
		ControlPlaneStartTimeout: 2 * time.Minute,
		ControlPlaneStopTimeout:  time.Minute,
	}
	if o.Webhooks {
		if err := addWebhooks(env, o); err != nil {
			return nil, err
		}
	}
	if o.EtcdDataDir != "" {
		KillOrphans(o.EtcdDataDir, o.Progress)
	}
	env.ControlPlane.Etcd = &envtest.Etcd{DataDir: o.EtcdDataDir}
	cfg, err := env.Start()
	if err != nil {
		_ = env.Stop()
		return nil, fmt.Errorf("starting the management cluster (kube-apiserver and etcd from %s): %w", bin, err)
	}
	// Some room above client-go's defaults: the reconciler applies whole
	// clusters and the status watchers list several kinds at once.
	cfg.QPS, cfg.Burst = 200, 400
	c, err := client.New(cfg, client.Options{Scheme: env.Scheme})
	if err != nil {
		_ = env.Stop()
		return nil, err
	}
	ns := &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: kube.Namespace}}
	if err := c.Create(ctx, ns); err != nil && !apierrors.IsAlreadyExists(err) {
		_ = env.Stop()
		return nil, fmt.Errorf("creating namespace %s: %w", kube.Namespace, err)
	}
	e := &Env{Config: cfg, Client: c, KubeConfig: env.KubeConfig, env: env}
	if o.GarbageCollector {
		if e.gc, err = startGarbageCollector(env, bin, o.EtcdDataDir, o.Progress); err != nil {
			_ = env.Stop()
			return nil, err
		}
	}
	if o.Webhooks {
		w := env.WebhookInstallOptions
		e.Webhooks = &WebhookServing{Host: w.LocalServingHost, Port: w.LocalServingPort, CertDir: w.LocalServingCertDir}
	}
	return e, nil
}

// Stop stops kube-controller-manager (first: it would otherwise log
// connection errors while the apiserver goes), kube-apiserver and etcd.
func (e *Env) Stop() error {
	gcErr := e.gc.stop()
	return errors.Join(gcErr, e.env.Stop())
}

// UserConfig returns a client config that authenticates as the given user
// (a client certificate), so that tests see what RBAC lets that user do.
// A ServiceAccount is the user system:serviceaccount:NAMESPACE:NAME.
func (e *Env) UserConfig(name string, groups ...string) (*rest.Config, error) {
	u, err := e.env.ControlPlane.AddUser(envtest.User{Name: name, Groups: groups}, e.Config)
	if err != nil {
		return nil, err
	}
	cfg := u.Config()
	// As fast as the admin's: client-go's default 5 QPS would throttle keel.
	cfg.QPS, cfg.Burst = e.Config.QPS, e.Config.Burst
	return cfg, nil
}

// WriteKubeconfig writes a kubeconfig for the cluster to path (mode 0600: it
// holds an admin client certificate).
func (e *Env) WriteKubeconfig(path string) error {
	return os.WriteFile(path, e.KubeConfig, 0o600)
}

// CRDDirs lists the folders whose CRDs a management cluster needs.
func CRDDirs(o Options) ([]string, error) {
	capi := o.CAPIDir
	if capi == "" {
		var err error
		if capi, err = ModuleDir(CAPIModule); err != nil {
			return nil, err
		}
	}
	capo := o.CAPOCRDDir
	if capo == "" {
		var err error
		if capo = os.Getenv("KEEL_CAPO_CRDS"); capo == "" {
			if capo, err = ModuleDir(CAPOModule); err != nil {
				return nil, err
			}
			capo = filepath.Join(capo, "config", "crd", "bases")
		}
	}
	return []string{
		filepath.Join(capi, "core", "config", "crd", "bases"),
		filepath.Join(capi, "bootstrap", "kubeadm", "config", "crd", "bases"),
		filepath.Join(capi, "controlplane", "kubeadm", "config", "crd", "bases"),
		capo,
	}, nil
}

// ModuleDir finds the module cache folder of a dependency of this binary at
// the version it was built with ($KEEL_CAPI_DIR overrides for Cluster API).
func ModuleDir(path string) (string, error) {
	if d := os.Getenv("KEEL_CAPI_DIR"); d != "" && path == CAPIModule {
		return d, nil
	}
	version := ""
	if bi, ok := debug.ReadBuildInfo(); ok {
		for _, dep := range bi.Deps {
			if dep.Path == path {
				version = dep.Version
				if dep.Replace != nil {
					version = dep.Replace.Version
				}
			}
		}
	}
	if version == "" {
		// Test binaries carry no dependency list in their build info; the
		// go command reads the version from go.mod (tests run inside the
		// module), never "latest", which could differ from the typed API.
		if out, err := exec.Command("go", "list", "-m", "-f", "{{.Version}}", path).Output(); err == nil {
			version = strings.TrimSpace(string(out))
		}
	}
	if version != "" {
		esc, err := module.EscapePath(path)
		if err != nil {
			return "", err
		}
		dir := filepath.Join(modCache(), esc+"@"+version)
		if _, err := os.Stat(dir); err == nil {
			return dir, nil
		}
	}
	// Fall back to the go command (it downloads the module if needed).
	args := []string{"mod", "download", "-json", path + "@" + orLatest(version)}
	if version == "" {
		// A test binary records no dependencies; its working directory is
		// in keel's module, whose go.mod pins the version (no network).
		args = []string{"list", "-m", "-json", path}
	}
	out, err := exec.Command("go", args...).Output()
	if err == nil {
		if i := strings.Index(string(out), `"Dir": "`); i >= 0 {
			rest := string(out)[i+len(`"Dir": "`):]
			return rest[:strings.Index(rest, `"`)], nil
		}
	}
	return "", fmt.Errorf("cannot find the %s module (needed for its CRDs) in the module cache %s; run `go mod download` in keel's source folder, or set KEEL_CAPI_DIR / KEEL_CAPO_CRDS", path, modCache())
}

func orLatest(v string) string {
	if v == "" {
		return "latest"
	}
	return v
}

func modCache() string {
	if d := os.Getenv("GOMODCACHE"); d != "" {
		return d
	}
	if out, err := exec.Command("go", "env", "GOMODCACHE").Output(); err == nil {
		if d := strings.TrimSpace(string(out)); d != "" {
			return d
		}
	}
	gopath := os.Getenv("GOPATH")
	if gopath == "" {
		home, _ := os.UserHomeDir()
		gopath = filepath.Join(home, "go")
	}
	return filepath.Join(strings.Split(gopath, string(os.PathListSeparator))[0], "pkg", "mod")
}
