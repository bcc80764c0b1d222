package conformance

import (
	"context"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"
)

// Magnum's own API (Debian's python3-magnum, magnum-api-wsgi under uwsgi)
// on the environment's Keystone, reading a Magnum database: what keel's
// API is compared with after keel import (docs/migration.md).

// magnumAPIPaste is Magnum's paste pipeline (its api-paste.ini, less the
// middlewares that play no part here: CORS, healthcheck, osprofiler).
const magnumAPIPaste = `[pipeline:main]
pipeline = request_id authtoken api_v1

[app:api_v1]
paste.app_factory = magnum.api.app:app_factory

[filter:authtoken]
acl_public_routes = /, /v1
paste.filter_factory = magnum.api.middleware.auth_token:AuthTokenMiddleware.factory

[filter:request_id]
paste.filter_factory = oslo_middleware:RequestId.factory
`

// capiDriverStandIn is a fake, named as such, where the real part cannot
// be had: the Cluster API driver (magnum-capi-helm, which provides
// Kubernetes on Ubuntu VMs) is not packaged by Debian, and Magnum's API
// refuses a template whose (server type, image os_distro, COE) no
// installed driver provides. It is found, as a driver is, by its entry
// point in magnum.drivers, and only ever says what it provides: the API
// asks nothing else of a driver to create a template.
var capiDriverStandIn = map[string]string{
	"keel_conformance_capi_driver.py": `class Driver:
    """Stands in for magnum-capi-helm's driver in keel's conformance tests."""

    @property
    def provides(self):
        return [{"server_type": "vm", "os": "ubuntu", "coe": "kubernetes"}]
`,
	"keel_conformance_capi_driver-0.dist-info/METADATA":         "Metadata-Version: 2.1\nName: keel-conformance-capi-driver\nVersion: 0\n",
	"keel_conformance_capi_driver-0.dist-info/entry_points.txt": "[magnum.drivers]\nkeel_conformance_capi = keel_conformance_capi_driver:Driver\n",
}

// writeFiles writes files (relative paths) under dir.
func writeFiles(dir string, files map[string]string) error {
	for p, data := range files {
		p = filepath.Join(dir, p)
		if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
			return err
		}
		if err := os.WriteFile(p, []byte(data), 0o600); err != nil {
			return err
		}
	}
	return nil
}

// Magnum's trustee domain and its admin, which Magnum's database layer
// asks Keystone about on every project-scoped read.
const (
	trusteeDomain   = "magnum"
	trusteeAdmin    = "magnum_trustee_domain_admin"
	trusteeAdminPwd = "conformance-trustee-pw"
)

// magnumAPITools are what startMagnumAPI runs.
var magnumAPITools = []string{"uwsgi", "/usr/bin/magnum-api-wsgi", "/usr/lib/uwsgi/plugins/python3_plugin.so"}

// startMagnumAPI serves Magnum's API on database dbURL, authenticating
// with the environment's Keystone as keel's service user, and returns its
// URL; it stops when the test ends.
func startMagnumAPI(t *testing.T, e *env, dbURL string) string {
	t.Helper()
	if err := e.trusteeDomain(context.Background()); err != nil {
		t.Fatal(err)
	}
	dir := t.TempDir()
	conf, drivers := filepath.Join(dir, "magnum.conf"), filepath.Join(dir, "drivers")
	if err := writeFiles(dir, map[string]string{"magnum.conf": magnumConf(e, dir, dbURL), "api-paste.ini": magnumAPIPaste}); err != nil {
		t.Fatal(err)
	}
	if err := writeFiles(drivers, capiDriverStandIn); err != nil {
		t.Fatal(err)
	}
	return runMagnumAPI(t, dir, conf, drivers)
}

// runMagnumAPI starts magnum-api-wsgi under uwsgi with configuration conf
// and folder drivers on its Python path, logging into dir, and returns
// its URL once it answers; it stops when the test ends.
func runMagnumAPI(t *testing.T, dir, conf, drivers string) string {
	t.Helper()
	port, err := freePort()
	if err != nil {
		t.Fatal(err)
	}
	log, err := os.Create(filepath.Join(dir, "magnum-api.log"))
	if err != nil {
		t.Fatal(err)
	}
	cmd := exec.Command("uwsgi", "--plugin", "python3", "--http-socket", fmt.Sprintf("127.0.0.1:%d", port),
		"--wsgi-file", "/usr/bin/magnum-api-wsgi", "--pyargv", "--config-file "+conf, "--pythonpath", drivers,
		"--master", "--processes", "1", "--threads", "1", "--die-on-term")
	cmd.Env, cmd.Stdout, cmd.Stderr = pythonEnv(), log, log
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		_, _ = cmd.Process.Wait()
		log.Close()
		if t.Failed() {
			data, _ := os.ReadFile(log.Name())
			t.Logf("magnum-api.log:\n%s", data)
		}
	})
	url := fmt.Sprintf("http://127.0.0.1:%d", port)
	if err := waitAnswers(url+"/", 3*time.Minute); err != nil {
		t.Fatalf("Magnum's API: %v", err)
	}
	return url
}

// magnumConf is magnum-api's configuration: database dbURL, Keystone as
// keel's service user, the x509keypair certificate store, the trustee
// domain; its paste pipeline in dir.
func magnumConf(e *env, dir, dbURL string) string {
	return fmt.Sprintf(`[DEFAULT]
[api]
api_paste_config = %s
[database]
connection = %s
[certificates]
cert_manager_type = x509keypair
[keystone_authtoken]
www_authenticate_uri = %s
auth_url = %s
auth_type = password
username = %s
password = %s
user_domain_name = %s
project_name = %s
project_domain_name = %s
[trust]
trustee_domain_name = %s
trustee_domain_admin_name = %s
trustee_domain_admin_password = %s
`, filepath.Join(dir, "api-paste.ini"), dbURL, e.ks.AuthURL, e.ks.URL, serviceUser, servicePass, ksDomain, serviceProject, ksDomain,
		trusteeDomain, trusteeAdmin, trusteeAdminPwd)
}

// trusteeDomain makes Magnum's trustee domain and its admin (once).
func (e *env) trusteeDomain(ctx context.Context) error {
	if _, err := e.ks.id(ctx, "domains", trusteeDomain); err == nil {
		return nil
	}
	did, err := e.ks.create(ctx, "domain", map[string]any{"name": trusteeDomain})
	if err != nil {
		return err
	}
	uid, err := e.ks.create(ctx, "user", map[string]any{"name": trusteeAdmin, "password": trusteeAdminPwd, "domain_id": did})
	if err != nil {
		return err
	}
	rid, err := e.ks.id(ctx, "roles", "admin")
	if err != nil {
		return err
	}
	return e.ks.call(ctx, http.MethodPut, "/domains/"+did+"/users/"+uid+"/roles/"+rid, nil, nil)
}

// waitAnswers polls url until it answers 2xx.
func waitAnswers(url string, within time.Duration) error {
	deadline := time.Now().Add(within)
	for {
		resp, err := httpClient.Get(url)
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode < 300 {
				return nil
			}
			err = fmt.Errorf("%s: %s", url, resp.Status)
		}
		if time.Now().After(deadline) {
			return fmt.Errorf("no answer within %s: %v", within, err)
		}
		time.Sleep(500 * time.Millisecond)
	}
}
