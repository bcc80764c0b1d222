// Package barbicantest runs a real Barbican (Debian's barbican-api, Zed)
// behind a real Keystone (python3-keystone), both under uwsgi on loopback
// with SQLite databases and configuration in the test's temporary folder:
// nothing under /etc is read or written. Barbican keeps its secrets with
// the simple_crypto plugin and enforces its default policy with
// keystonemiddleware, as in a cloud. Keystone knows Magnum's service user
// (MagnumUser, admin of ServiceProject, as Magnum's install guides make
// it), another admin of that project (ServiceAdmin), the cloud's admin
// (CloudAdmin, of its own project) and a user of another project
// (OtherUser). Tests that need it skip without the binaries unless
// KEEL_REQUIRE_BARBICAN=1 (make test sets it), which makes that a
// failure.
package barbicantest

import (
	"encoding/base64"
	"fmt"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/keystoneconf"
)

// The WSGI scripts of Debian's packages, and uwsgi.
var binaries = []string{"/usr/bin/keystone-wsgi-public", "/usr/bin/barbican-wsgi-api", "/usr/bin/uwsgi"}

// Users and projects Start makes.
const (
	Region         = "RegionOne"
	ServiceProject = "service"
	MagnumUser     = "magnum"
	MagnumPassword = "magnum-service-pw"
	// ServiceAdmin is another admin of ServiceProject.
	ServiceAdmin         = "ops"
	ServiceAdminPassword = "ops-pw"
	// CloudAdmin is keystone-manage bootstrap's admin, of project admin.
	CloudAdmin         = "admin"
	CloudAdminPassword = "barbicantest-admin-pw"
	CloudAdminProject  = "admin"
	OtherProject       = "demo"
	OtherUser          = "alice"
	OtherPassword      = "alice-pw"
	startupDeadline    = 3 * time.Minute
)

// Cloud is a running Keystone and Barbican.
type Cloud struct {
	// AuthURL is Keystone's /v3; BarbicanURL is Barbican's endpoint, as
	// the catalog has it.
	AuthURL, BarbicanURL string
	// MagnumConf is a magnum.conf whose [keystone_auth] is Magnum's
	// service user, for Magnum's own barbican certificate manager.
	MagnumConf string
	dir        string
	ks         *keystone
}

// Start starts Keystone and Barbican, stopped when the test ends.
func Start(t testing.TB) *Cloud {
	t.Helper()
	need(t)
	c := &Cloud{dir: t.TempDir()}
	// A failing test shows what the services said (the folder goes with
	// the test); cleanups run last-registered first, so this runs before
	// the services stop.
	t.Cleanup(func() {
		if t.Failed() {
			for _, f := range []string{"keystone/keystone.log", "barbican/barbican.log", "barbican/uwsgi.log"} {
				t.Logf("%s:\n%s", f, tail(filepath.Join(c.dir, f)))
			}
		}
	})
	c.ks = startKeystone(t, c.dir)
	c.AuthURL = c.ks.authURL
	port := freePort(t)
	c.BarbicanURL = fmt.Sprintf("http://127.0.0.1:%d", port)
	c.ks.setUp(t, c.BarbicanURL)
	c.startBarbican(t, port)
	c.MagnumConf = c.writeMagnumConf(t)
	return c
}

// need skips the test without the binaries, or fails it with
// KEEL_REQUIRE_BARBICAN=1.
func need(t testing.TB) {
	t.Helper()
	for _, b := range binaries {
		if _, err := os.Stat(b); err != nil {
			if os.Getenv("KEEL_REQUIRE_BARBICAN") == "1" {
				t.Fatalf("KEEL_REQUIRE_BARBICAN=1 but %s is missing (hack/test-deps.sh installs barbican-api, python3-keystone and uwsgi)", b)
			}
			t.Skipf("%s missing: Barbican not tested here (make test installs it and sets KEEL_REQUIRE_BARBICAN=1)", b)
		}
	}
}

// startBarbican writes Barbican's configuration and serves it until the
// test ends; its database is made on start (db_auto_create).
func (c *Cloud) startBarbican(t testing.TB, port int) {
	t.Helper()
	dir := filepath.Join(c.dir, "barbican")
	// Barbican reads no file named on its command line: each of its
	// plugins parses the default files again, of which ~/.barbican/ comes
	// before /etc/barbican/. HOME is this folder.
	if err := os.MkdirAll(filepath.Join(dir, ".barbican"), 0o700); err != nil {
		t.Fatal(err)
	}
	write(t, filepath.Join(dir, ".barbican"), "barbican.conf", c.barbicanConf(dir, randomKey(t)))
	// The package's WSGI script reads /etc/barbican's paste file; this
	// one reads the package's default pipeline (keystonemiddleware's
	// authtoken, then Barbican's context) from /usr/share.
	shim := write(t, dir, "wsgi.py", "from paste import deploy\n"+
		"application = deploy.loadapp('config:/usr/share/barbican-common/barbican-api-paste.ini')\n")
	serve(t, dir, port, shim, "HOME="+dir)
	waitFor(t, "Barbican", filepath.Join(dir, "uwsgi.log"), func() error { return c.ks.ping(c.BarbicanURL + "/") })
}

// barbicanConf is Barbican's configuration: secrets encrypted by the
// simple_crypto plugin with kek, tokens validated by Keystone as its
// admin, no notifications (no message bus).
func (c *Cloud) barbicanConf(dir string, kek []byte) string {
	return fmt.Sprintf(`[DEFAULT]
log_file = %[1]s/barbican.log
sql_connection = sqlite:///%[1]s/barbican.db
db_auto_create = true
host_href = %[2]s
[secretstore]
enabled_secretstore_plugins = store_crypto
[crypto]
enabled_crypto_plugins = simple_crypto
[simple_crypto_plugin]
kek = %[3]s
[keystone_authtoken]
www_authenticate_uri = %[4]s
auth_url = %[4]s
auth_type = password
username = admin
password = %[5]s
project_name = admin
user_domain_name = Default
project_domain_name = Default
[oslo_messaging_notifications]
driver = noop
`, dir, c.BarbicanURL, base64.StdEncoding.EncodeToString(kek), c.AuthURL, CloudAdminPassword)
}

// writeMagnumConf writes the magnum.conf of Magnum's conductor as far as
// its barbican certificate manager reads it.
func (c *Cloud) writeMagnumConf(t testing.TB) string {
	t.Helper()
	return write(t, c.dir, "magnum.conf", fmt.Sprintf(`[keystone_authtoken]
www_authenticate_uri = %[1]s
[keystone_auth]
auth_type = password
auth_url = %[1]s
username = %[2]s
password = %[3]s
project_name = %[4]s
user_domain_name = Default
project_domain_name = Default
[barbican_client]
region_name = %[5]s
`, c.AuthURL, MagnumUser, MagnumPassword, ServiceProject, Region))
}

// CloudsYAML is a clouds.yaml with one cloud, "test": user of project in
// region.
func (c *Cloud) CloudsYAML(user, password, project, region string) string {
	return fmt.Sprintf(`clouds:
  test:
    auth:
      auth_url: %s
      username: %s
      password: %s
      project_name: %s
      user_domain_name: Default
      project_domain_name: Default
    region_name: %s
    interface: public
    identity_api_version: 3
`, c.AuthURL, user, password, project, region)
}

// serve runs a WSGI script under uwsgi on port until the test ends, with
// Debian's python3 (not another on PATH).
func serve(t testing.TB, dir string, port int, script string, env ...string) {
	t.Helper()
	log, err := os.Create(filepath.Join(dir, "uwsgi.log"))
	if err != nil {
		t.Fatal(err)
	}
	// One worker, as Keystone's: Barbican's SQLite database is opened by
	// oslo.db too. A relative path a default leaves
	// (sqlite:///barbican.sqlite) lands in the test's folder (--chdir).
	cmd := exec.Command("/usr/bin/uwsgi", keystoneconf.UwsgiArgs(port, script, "--lazy-apps", "--chdir", dir)...)
	cmd.Env = append(pythonEnv(), env...)
	cmd.Stdout, cmd.Stderr = log, log
	// Its own process group: stopping it ends the workers with the master.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	done := make(chan struct{})
	go func() { _ = cmd.Wait(); close(done) }()
	t.Cleanup(func() {
		_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
		select {
		case <-done:
		case <-time.After(20 * time.Second):
			_ = syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
		}
	})
}

// waitFor polls ready until it succeeds, failing the test with the end of
// logFile after startupDeadline.
func waitFor(t testing.TB, what, logFile string, ready func() error) {
	t.Helper()
	deadline := time.Now().Add(startupDeadline)
	for {
		err := ready()
		if err == nil {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s did not answer in %s: %v\n%s", what, startupDeadline, err, tail(logFile))
		}
		time.Sleep(time.Second)
	}
}

func tail(file string) string {
	b, _ := os.ReadFile(file)
	if len(b) > 4000 {
		b = b[len(b)-4000:]
	}
	return string(b)
}

func write(t testing.TB, dir, name, content string) string {
	t.Helper()
	p := filepath.Join(dir, name)
	if err := os.WriteFile(p, []byte(content), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// freePort picks a loopback port nobody listens on now: the catalog must
// name it before the service starts.
func freePort(t testing.TB) int {
	t.Helper()
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port
}

// pythonEnv is the environment of Debian's OpenStack code: /usr/bin first
// (Debian's python3, where the packages are), no OS_* of the caller.
func pythonEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "PYTHON") || strings.HasPrefix(kv, "VIRTUAL_ENV=") || strings.HasPrefix(kv, "OS_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH=/usr/bin:/bin:/usr/sbin:/sbin:"+os.Getenv("PATH"))
}
