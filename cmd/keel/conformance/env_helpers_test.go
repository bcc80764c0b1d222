package conformance

import (
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sync"
	"testing"
	"time"

	"github.com/go-logr/logr"
	"github.com/gophercloud/gophercloud/v2"
	gcopenstack "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clustertemplates"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"

	"github.com/openkeel/keel/cmd/keel/server"
	"github.com/openkeel/keel/internal/openstack"
	mdb "github.com/openkeel/keel/internal/testing/magnumdbtest"
	"github.com/openkeel/keel/reconciler"
	"github.com/openkeel/keel/restapi/auth"
)

// required makes a missing tool a failure (make test, CI) instead of a skip.
const required = "KEEL_REQUIRE_CONFORMANCE"

// keel's service user in Keystone: it validates tokens (role service) and
// deletes clusters' application credentials at teardown (role admin,
// docs/secrets.md).
const (
	serviceUser    = "keel"
	servicePass    = "keel-service-pw"
	serviceProject = "service"
)

// env is what both suites run against: Keystone under uwsgi, the fake
// Nova/Glance/Neutron/Cinder, keel with --auth keystone and Cluster API's
// own controllers, its URL in Keystone's catalog as container-infra.
type env struct {
	dir   string
	ks    *realKeystone
	cloud *fakeCloud
	keel  *server.Instance
	log   *os.File
}

var (
	envOnce sync.Once
	shared  *env
	envErr  error
)

func TestMain(m *testing.M) {
	// keel logs to environment.log; controller-runtime's own logger stays
	// silent instead of warning that it was never set.
	ctrllog.SetLogger(logr.Discard())
	code := m.Run()
	if shared != nil {
		shared.stop()
	}
	mdb.Cleanup()
	os.Exit(code)
}

// needTools skips the test, or fails it under KEEL_REQUIRE_CONFORMANCE=1,
// when a program the suites need is not installed.
func needTools(t *testing.T, tools ...string) {
	t.Helper()
	var missing []string
	for _, tool := range tools {
		if _, err := os.Stat(tool); err == nil {
			continue
		}
		if _, err := exec.LookPath(tool); err != nil {
			missing = append(missing, tool)
		}
	}
	if len(missing) == 0 {
		return
	}
	msg := fmt.Sprintf("missing %v: install the Debian packages with `bash hack/test-deps.sh` (tempest, magnum-tempest-plugin, python3-keystone, uwsgi, uwsgi-plugin-python3)", missing)
	if os.Getenv(required) == "1" {
		t.Fatal(msg + " (" + required + "=1)")
	}
	t.Skip(msg)
}

// keystoneTools are what the shared environment needs.
var keystoneTools = []string{"keystone-manage", "uwsgi", "/usr/bin/keystone-wsgi-public", "/usr/lib/uwsgi/plugins/python3_plugin.so"}

// sharedEnv starts the environment once for the package's tests; TestMain
// stops it.
func sharedEnv(t *testing.T) *env {
	t.Helper()
	needTools(t, keystoneTools...)
	envOnce.Do(func() { shared, envErr = startEnv() })
	if envErr != nil {
		t.Fatal(envErr)
	}
	return shared
}

func startEnv() (_ *env, err error) {
	start := time.Now()
	dir, err := os.MkdirTemp("", "keel-conformance-")
	if err != nil {
		return nil, err
	}
	e := &env{dir: dir}
	defer func() {
		if err != nil {
			e.stop()
		}
	}()
	if e.log, err = os.Create(filepath.Join(dir, "environment.log")); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "conformance: environment in %s (logs: environment.log, keystone/keystone.log)\n", dir)
	ctx := context.Background()
	port, err := freePort()
	if err != nil {
		return nil, err
	}
	if e.ks, err = startKeystone(filepath.Join(dir, "keystone"), port, e.log); err != nil {
		return nil, err
	}
	e.cloud = newFakeCloud(e.ks.tokenCaller)
	// gophercloud's clusters use OS_MAGNUM_KEYPAIR, the admin's.
	adminID, err := e.ks.id(ctx, "users", ksAdmin)
	if err != nil {
		return nil, err
	}
	e.cloud.addKeypair(adminID, keypairName)
	if err := e.ks.addUser(ctx, serviceUser, servicePass, serviceProject, "service", "admin"); err != nil {
		return nil, err
	}
	for _, s := range []struct{ typ, name, url string }{
		{"compute", "nova", e.cloud.URL + "/compute/v2.1"},
		{"image", "glance", e.cloud.URL + "/image/"},
		{"network", "neutron", e.cloud.URL + "/network/"},
		{"volumev3", "cinderv3", e.cloud.URL + "/volume/v3/$(project_id)s"},
	} {
		if err := e.ks.addService(ctx, s.typ, s.name, s.url); err != nil {
			return nil, err
		}
	}
	service := gophercloud.AuthOptions{IdentityEndpoint: e.ks.AuthURL, Username: serviceUser, Password: servicePass, DomainName: ksDomain,
		Scope: &gophercloud.AuthScope{ProjectName: serviceProject, DomainName: ksDomain}}
	e.keel, err = server.Start(ctx, server.Options{
		DataDir: filepath.Join(dir, "keel"),
		Listen:  "127.0.0.1:0",
		// As `keel serve --auth keystone --openstack-lookups real`.
		Auth:           &auth.Keystone{AuthURL: e.ks.AuthURL, Service: service, HTTPClient: httpClient},
		AuthURL:        e.ks.AuthURL,
		OpenStack:      openstack.New(openstack.Options{Auth: service, Region: ksRegion, HTTPClient: httpClient}),
		RealClusterAPI: true,
		SimulateStep:   200 * time.Millisecond,
		Reconciler:     reconciler.Options{Poll: 200 * time.Millisecond, RetryMin: 200 * time.Millisecond},
		Log:            slog.New(slog.NewTextHandler(e.log, &slog.HandlerOptions{Level: slog.LevelInfo})),
		Out:            e.log,
	})
	if err != nil {
		return nil, fmt.Errorf("keel: %w", err)
	}
	if err := e.ks.addService(ctx, "container-infra", "magnum", e.keel.URL+"/v1"); err != nil {
		return nil, err
	}
	fmt.Fprintf(os.Stderr, "conformance: Keystone %s, keel %s, ready in %s\n", e.ks.URL, e.keel.URL, time.Since(start).Round(time.Second))
	return e, nil
}

func (e *env) stop() {
	if e.keel != nil {
		_ = e.keel.Stop()
	}
	if e.cloud != nil {
		e.cloud.Close()
	}
	if e.ks != nil {
		e.ks.stop()
	}
	if e.log != nil {
		e.log.Close()
	}
	// Kept when asked, to read the logs of a failed run.
	if os.Getenv("KEEL_CONFORMANCE_KEEP") == "" {
		_ = os.RemoveAll(e.dir)
	}
}

// adminClient is a Magnum API client of Keystone's bootstrap admin,
// keel found in the catalog as container-infra.
func (e *env) adminClient(ctx context.Context) (*gophercloud.ServiceClient, error) {
	provider, err := gcopenstack.AuthenticatedClient(ctx, gophercloud.AuthOptions{
		IdentityEndpoint: e.ks.AuthURL, Username: ksAdmin, Password: ksAdminPwd, DomainName: ksDomain,
		Scope: &gophercloud.AuthScope{ProjectName: ksAdmin, DomainName: ksDomain},
	})
	if err != nil {
		return nil, err
	}
	provider.HTTPClient = *httpClient
	sc, err := gcopenstack.NewContainerInfraV1(provider, gophercloud.EndpointOpts{Region: ksRegion})
	if err != nil {
		return nil, err
	}
	sc.Microversion = "1.10"
	return sc, nil
}

// kubeTemplate creates a public Kubernetes template of the fake cloud's
// resources with a kube_tag, for the suites' clusters: their own
// templates have none and keel requires one (docs/conformance.md).
func (e *env) kubeTemplate(ctx context.Context, name string) (string, error) {
	sc, err := e.adminClient(ctx)
	if err != nil {
		return "", err
	}
	public := true
	tmpl, err := clustertemplates.Create(ctx, sc, clustertemplates.CreateOpts{
		Name: name, COE: "kubernetes", ImageID: imageName, FlavorID: flavorID, MasterFlavorID: flavorResizeID,
		ExternalNetworkID: extNetName, Public: &public, Labels: map[string]string{"kube_tag": kubeTag},
	}).Extract()
	if err != nil {
		return "", fmt.Errorf("template %s: %w", name, err)
	}
	return tmpl.UUID, nil
}

// kubeTag is the Kubernetes version of the suites' clusters (the image's).
const kubeTag = "v1.33.1"
