// Package capo runs the real Cluster API Provider OpenStack (CAPO v0.14)
// controller manager and the openstack-resource-controller (ORC v2) that it
// needs, as host processes against a management cluster, as clusterctl's
// Deployments run them on a real one: ORC's CRDs installed, CAPO's
// validating webhooks registered and served on the loopback with a
// certificate the apiserver trusts, both managers with an admin kubeconfig
// (so no RBAC) and watching one namespace. They reach OpenStack through the
// clouds.yaml Secret each OpenStackCluster names (keel writes
// <stack_id>-cloud-config), so every endpoint they call is the one the
// cluster's credential gives.
//
// The binaries are built from their own Go modules (hack/capo, hack/orc:
// CAPO pins Cluster API v1.12, keel v1.14) by hack/capo.sh, cached by
// version. keel's CRDs for CAPO come from keel's go.mod, whose CAPO
// version TestCAPOVersionMatchesKeel keeps equal to the binary's.
//
// The real-OpenStack tests (TestRealOpenStack…) start them; keel's
// embedded default keeps the simulated CAPO (simulator/capo,
// docs/simulator.md).
package capo

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"strconv"

	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/envtest"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/mgmtcluster"
)

// Options configure the providers.
type Options struct {
	// Config is an admin config of the management cluster (CRDs and
	// webhook configurations are installed with it).
	Config *rest.Config
	// KubeConfig is the same identity as a kubeconfig file's content,
	// which the two managers read.
	KubeConfig []byte
	// Namespace is the one namespace they watch; default kube.Namespace.
	Namespace string
	// Dir keeps the kubeconfig, the webhook certificate and the logs;
	// empty: a temporary folder removed at Stop.
	Dir string
	// Progress receives build progress (the first build takes minutes).
	Progress io.Writer
	// ExtraArgs are added to CAPO's command line (feature gates, log
	// verbosity).
	ExtraArgs []string
}

// Providers are the running CAPO and ORC.
type Providers struct {
	capo, orc *process
	dir, temp string
	webhooks  *envtest.WebhookInstallOptions
	config    *rest.Config
}

// Start builds the binaries if needed, installs ORC's CRDs and CAPO's
// webhook configurations, and starts ORC and CAPO; it returns once CAPO's
// webhook server answers its readiness check.
func Start(ctx context.Context, o Options) (_ *Providers, err error) {
	if o.Progress == nil {
		o.Progress = os.Stderr
	}
	if o.Namespace == "" {
		o.Namespace = kube.Namespace
	}
	bins, err := EnsureBinaries(ctx, o.Progress)
	if err != nil {
		return nil, err
	}
	p := &Providers{dir: o.Dir, config: o.Config}
	if p.dir == "" {
		if p.dir, err = os.MkdirTemp("", "keel-capo-"); err != nil {
			return nil, err
		}
		p.temp = p.dir
	}
	defer func() {
		if err != nil {
			_ = p.Stop()
		}
	}()
	kubeconfig := filepath.Join(p.dir, "kubeconfig")
	if err := os.WriteFile(kubeconfig, o.KubeConfig, 0o600); err != nil {
		return nil, err
	}
	if err := installORCCRDs(o.Config, bins.ORCDir); err != nil {
		return nil, err
	}
	if p.webhooks, err = installWebhooks(o.Config, bins.CAPODir); err != nil {
		return nil, err
	}
	if p.orc, err = startORC(ctx, bins.ORC, p.dir, kubeconfig, o.Namespace); err != nil {
		return nil, err
	}
	if p.capo, err = startCAPO(ctx, bins.CAPO, p.dir, kubeconfig, o, p.webhooks); err != nil {
		return nil, err
	}
	return p, nil
}

// installORCCRDs installs the CRDs of ORC's config/crd/bases: CAPO watches
// ORC Images (a machine's image may name one) and cannot start without
// the kind.
func installORCCRDs(cfg *rest.Config, orcDir string) error {
	_, err := envtest.InstallCRDs(cfg, envtest.CRDInstallOptions{
		Paths:              []string{filepath.Join(orcDir, "config", "crd", "bases")},
		ErrorIfPathMissing: true,
	})
	if err != nil {
		return fmt.Errorf("installing ORC's CRDs: %w", err)
	}
	return nil
}

// installWebhooks registers CAPO's validating webhooks (its
// config/webhook/manifests.yaml, names prefixed capo- as its kustomization
// prefixes them) at a free loopback port, with a CA the apiserver trusts
// and a serving certificate for CAPO in a folder of their own.
func installWebhooks(cfg *rest.Config, capoDir string) (*envtest.WebhookInstallOptions, error) {
	mut, val, err := mgmtcluster.ReadWebhookConfigurations(filepath.Join(capoDir, "config", "webhook", "manifests.yaml"))
	if err != nil {
		return nil, fmt.Errorf("CAPO's webhooks: %w", err)
	}
	for _, m := range mut {
		m.Name = "capo-" + m.Name
	}
	for _, v := range val {
		v.Name = "capo-" + v.Name
	}
	w := &envtest.WebhookInstallOptions{
		MutatingWebhooks: mut, ValidatingWebhooks: val,
		LocalServingHost: "127.0.0.1",
	}
	if err := w.Install(cfg); err != nil {
		_ = w.Cleanup()
		return nil, fmt.Errorf("registering CAPO's webhooks: %w", err)
	}
	return w, nil
}

// Stop stops CAPO, then ORC, and removes CAPO's webhook configurations,
// which would otherwise refuse every write of CAPO's kinds once nothing
// serves them.
func (p *Providers) Stop() error {
	var errs []error
	for _, pr := range []*process{p.capo, p.orc} {
		if pr != nil {
			errs = append(errs, pr.stop())
		}
	}
	if p.webhooks != nil {
		errs = append(errs, p.removeWebhooks())
		_ = p.webhooks.Cleanup()
	}
	if p.temp != "" {
		_ = os.RemoveAll(p.temp)
	}
	return errors.Join(errs...)
}

func (p *Providers) removeWebhooks() error {
	c, err := client.New(p.config, client.Options{})
	if err != nil {
		return err
	}
	ctx := context.Background()
	var errs []error
	for _, v := range p.webhooks.ValidatingWebhooks {
		if err := c.Delete(ctx, v); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	for _, m := range p.webhooks.MutatingWebhooks {
		if err := c.Delete(ctx, m); err != nil && !apierrors.IsNotFound(err) {
			errs = append(errs, err)
		}
	}
	return errors.Join(errs...)
}

// Logs are the paths of CAPO's and ORC's logs, for a failing test to show.
func (p *Providers) Logs() (capo, orc string) {
	return filepath.Join(p.dir, "capo.log"), filepath.Join(p.dir, "orc.log")
}

// freeAddr is a loopback address with a port free now, for a manager's
// health endpoint.
func freeAddr() (string, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return "", err
	}
	defer ln.Close()
	return "127.0.0.1:" + strconv.Itoa(ln.Addr().(*net.TCPAddr).Port), nil
}
