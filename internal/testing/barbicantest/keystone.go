package barbicantest

import (
	"bytes"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/openkeel/keel/internal/testing/keystoneconf"
)

// UnreachableRegion is a region whose key-manager endpoint nobody
// listens on: a client of it finds Barbican unreachable.
const UnreachableRegion = "RegionTwo"

// keystone is Debian's Keystone under uwsgi, with its admin's token.
type keystone struct {
	authURL, token string
	log            string // uwsgi's
}

// httpClient closes each connection after its exchange: uwsgi drops idle
// keep-alive connections, which would hang a retry.
var httpClient = &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}

// startKeystone makes Keystone's database, keys and bootstrap admin in
// dir and serves it until the test ends.
func startKeystone(t testing.TB, dir string) *keystone {
	t.Helper()
	dir = filepath.Join(dir, "keystone")
	port := freePort(t)
	ks := &keystone{authURL: fmt.Sprintf("http://127.0.0.1:%d/v3", port), log: filepath.Join(dir, "uwsgi.log")}
	writeKeyRepositories(t, dir)
	conf := write(t, dir, "keystone.conf", keystoneConf(dir))
	env := append(pythonEnv(), "OS_KEYSTONE_CONFIG_FILES="+conf)
	manage(t, dir, env, conf, "db_sync")
	manage(t, dir, env, conf, "bootstrap", "--bootstrap-password", CloudAdminPassword, "--bootstrap-region-id", Region,
		"--bootstrap-public-url", ks.authURL, "--bootstrap-internal-url", ks.authURL, "--bootstrap-admin-url", ks.authURL)
	serve(t, dir, port, "/usr/bin/keystone-wsgi-public", "OS_KEYSTONE_CONFIG_FILES="+conf)
	waitFor(t, "Keystone", ks.log, func() (err error) {
		ks.token, err = ks.password(CloudAdmin, CloudAdminPassword, CloudAdminProject)
		return err
	})
	return ks
}

// writeKeyRepositories writes the key repositories keystone-manage
// fernet_setup and credential_setup would make (keys 0 and 1): each
// keystone-manage call costs seconds.
func writeKeyRepositories(t testing.TB, dir string) {
	t.Helper()
	for _, d := range []string{"fernet", "credential"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			t.Fatal(err)
		}
		for _, k := range []string{"0", "1"} {
			write(t, filepath.Join(dir, d), k, base64.URLEncoding.EncodeToString(randomKey(t)))
		}
	}
}

// keystoneConf is Keystone's configuration: cheap password hashes (the
// set-up creates users), an in-process cache (without it, SQLite was
// locked under the set-up's writes), and no notifications (without a
// message bus each create waited for one, 5 s, and failed).
func keystoneConf(dir string) string {
	return keystoneconf.Conf(dir, "[oslo_messaging_notifications]\ndriver = noop\n")
}

func randomKey(t testing.TB) []byte {
	t.Helper()
	key := make([]byte, 32)
	if _, err := rand.Read(key); err != nil {
		t.Fatal(err)
	}
	return key
}

// manage runs keystone-manage; its log goes to dir.
func manage(t testing.TB, dir string, env []string, conf string, args ...string) {
	t.Helper()
	cmd := exec.Command("/usr/bin/keystone-manage", append([]string{"--config-file", conf}, args...)...)
	cmd.Env = env
	if out, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("keystone-manage %s: %v\n%s\n%s", args[0], err, out, tail(filepath.Join(dir, "keystone.log")))
	}
}

// setUp makes Magnum's service user and another admin of its project,
// another project's user and Barbican's endpoints (at barbicanURL in
// Region, at a closed port in UnreachableRegion).
func (ks *keystone) setUp(t testing.TB, barbicanURL string) {
	t.Helper()
	service := ks.create(t, "project", map[string]any{"name": ServiceProject, "domain_id": "default"})
	ks.user(t, MagnumUser, MagnumPassword, service, "admin")
	ks.user(t, ServiceAdmin, ServiceAdminPassword, service, "admin")
	ks.user(t, OtherUser, OtherPassword, ks.create(t, "project", map[string]any{"name": OtherProject, "domain_id": "default"}), "member")
	ks.create(t, "region", map[string]any{"id": UnreachableRegion})
	svc := ks.create(t, "service", map[string]any{"type": "key-manager", "name": "barbican"})
	for region, url := range map[string]string{Region: barbicanURL, UnreachableRegion: fmt.Sprintf("http://127.0.0.1:%d", freePort(t))} {
		for _, iface := range []string{"public", "internal", "admin"} {
			ks.create(t, "endpoint", map[string]any{"service_id": svc, "interface": iface, "url": url, "region_id": region})
		}
	}
}

// user creates a user with role on project pid.
func (ks *keystone) user(t testing.TB, name, password, pid, role string) {
	t.Helper()
	uid := ks.create(t, "user", map[string]any{"name": name, "password": password, "domain_id": "default"})
	var roles struct {
		Roles []struct{ ID string } `json:"roles"`
	}
	if err := ks.call(http.MethodGet, "/roles?name="+role, nil, &roles); err != nil || len(roles.Roles) != 1 {
		t.Fatalf("keystone: role %s: %v", role, err)
	}
	if err := ks.call(http.MethodPut, "/projects/"+pid+"/users/"+uid+"/roles/"+roles.Roles[0].ID, nil, nil); err != nil {
		t.Fatal(err)
	}
}

// create POSTs one entity of kind and returns its id.
func (ks *keystone) create(t testing.TB, kind string, body map[string]any) string {
	t.Helper()
	var out map[string]struct {
		ID string `json:"id"`
	}
	if err := ks.call(http.MethodPost, "/"+kind+"s", map[string]any{kind: body}, &out); err != nil {
		t.Fatalf("%v\n%s", err, tail(filepath.Join(filepath.Dir(ks.log), "keystone.log")))
	}
	return out[kind].ID
}

// call is one request to Keystone's API as its admin; out, if not nil,
// receives the JSON answer.
func (ks *keystone) call(method, path string, in, out any) error {
	resp, err := ks.do(method, ks.authURL+path, in, ks.token)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		b, _ := io.ReadAll(resp.Body)
		return fmt.Errorf("keystone %s %s: %s %s", method, path, resp.Status, b)
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// password returns a token of user scoped to project.
func (ks *keystone) password(user, password, project string) (string, error) {
	domain := map[string]any{"name": "Default"}
	resp, err := ks.do(http.MethodPost, ks.authURL+"/auth/tokens", map[string]any{"auth": map[string]any{
		"identity": map[string]any{"methods": []string{"password"}, "password": map[string]any{
			"user": map[string]any{"name": user, "password": password, "domain": domain}}},
		"scope": map[string]any{"project": map[string]any{"name": project, "domain": domain}},
	}}, "")
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("keystone: password authentication of %s: %s", user, resp.Status)
	}
	return resp.Header.Get("X-Subject-Token"), nil
}

// ping reports whether url answers HTTP without a server error.
func (ks *keystone) ping(url string) error {
	resp, err := ks.do(http.MethodGet, url, nil, "")
	if err != nil {
		return err
	}
	resp.Body.Close()
	if resp.StatusCode >= 500 {
		return fmt.Errorf("GET %s: %s", url, resp.Status)
	}
	return nil
}

// do sends one request.
func (ks *keystone) do(method, url string, in any, token string) (*http.Response, error) {
	var body []byte
	if in != nil {
		var err error
		if body, err = json.Marshal(in); err != nil {
			return nil, err
		}
	}
	req, err := http.NewRequest(method, url, bytes.NewReader(body))
	if err != nil {
		return nil, err
	}
	req.Header.Set("Content-Type", "application/json")
	if token != "" {
		req.Header.Set("X-Auth-Token", token)
	}
	return httpClient.Do(req)
}
