package conformance

import (
	"bytes"
	"context"
	"crypto/rand"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"syscall"
	"time"

	"github.com/openkeel/keel/internal/testing/keystoneconf"
	"github.com/openkeel/keel/internal/testing/novatest"
)

// realKeystone is Debian's Keystone (python3-keystone) served by uwsgi on
// loopback, with a throwaway SQLite database, fernet keys and config in a
// temporary folder: nothing under /etc is read or written.
type realKeystone struct {
	URL, AuthURL  string // unversioned; /v3
	AdminPassword string
	adminToken    string
	dir           string
	cmd           *exec.Cmd
}

// Keystone's bootstrap names (keystone-manage bootstrap's defaults).
const (
	ksAdmin    = "admin"
	ksRegion   = "RegionOne"
	ksDomain   = "Default"
	ksAdminPwd = "conformance-admin-pw"
)

// freePort picks a loopback port nobody listens on now: Keystone's
// endpoints must be known before it starts (bootstrap writes them).
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, err
	}
	port := l.Addr().(*net.TCPAddr).Port
	return port, l.Close()
}

// keystonePolicy brings Debian's Keystone to today's on the one rule a
// suite meets: since Keystone 2024.1 ("Allow users with admin role to get
// projects") an admin anywhere may read any project, as Magnum's quota
// create does (its API checks that the project exists: Debian's Magnum 15
// with its trustee domain's admin, 2026.2 with the caller's token).
const keystonePolicy = `"identity:get_project": "(rule:admin_required) or (role:reader and system_scope:all) or (role:reader and domain_id:%(target.project.domain_id)s) or project_id:%(target.project.id)s"
`

// startKeystone prepares and starts Keystone; stop ends uwsgi. It takes a
// minute or two on a loaded machine (each keystone-manage call imports
// Keystone's whole tree).
func startKeystone(dir string, port int, logTo *os.File) (*realKeystone, error) {
	ks := &realKeystone{dir: dir, AdminPassword: ksAdminPwd,
		URL: fmt.Sprintf("http://127.0.0.1:%d", port)}
	ks.AuthURL = ks.URL + "/v3"
	// The key repositories fernet_setup and credential_setup would make
	// (a staged key 0 and a primary key 1, each 32 random bytes in URL
	// base64), written here: each keystone-manage call costs seconds.
	for _, d := range []string{"fernet", "credential"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o700); err != nil {
			return nil, err
		}
		for _, k := range []string{"0", "1"} {
			key := make([]byte, 32)
			if _, err := rand.Read(key); err != nil {
				return nil, err
			}
			if err := os.WriteFile(filepath.Join(dir, d, k), []byte(base64.URLEncoding.EncodeToString(key)), 0o600); err != nil {
				return nil, err
			}
		}
	}
	// Cheap bcrypt (the suites create users), an in-process cache, the
	// new default policies (reader/member/admin, as Magnum's gate).
	conf := keystoneconf.Conf(dir, fmt.Sprintf(`[oslo_policy]
enforce_new_defaults = true
enforce_scope = false
policy_file = %s/policy.yaml
`, dir))
	confFile := filepath.Join(dir, "keystone.conf")
	if err := writeFiles(dir, map[string]string{"keystone.conf": conf, "policy.yaml": keystonePolicy}); err != nil {
		return nil, err
	}
	env := append(pythonEnv(), "OS_KEYSTONE_CONFIG_FILES="+confFile)
	// Receipts read their own key repository (default /etc/keystone/
	// fernet-keys, which only the Debian package's postinst makes);
	// bootstrap fails without it, so it is set above.
	var manageErrs []string
	for _, args := range [][]string{
		{"db_sync"},
		{"bootstrap", "--bootstrap-password", ksAdminPwd, "--bootstrap-region-id", ksRegion,
			"--bootstrap-admin-url", ks.AuthURL, "--bootstrap-public-url", ks.AuthURL, "--bootstrap-internal-url", ks.AuthURL},
	} {
		c := exec.Command("keystone-manage", append([]string{"--config-file", confFile}, args...)...)
		c.Env, c.Stdout, c.Stderr = env, logTo, logTo
		if err := c.Run(); err != nil {
			// keystone-manage may trip over eventlet at exit after its
			// work is done; a real failure shows in the steps after.
			if _, ok := err.(*exec.ExitError); !ok {
				return nil, fmt.Errorf("keystone-manage %s: %w", args[0], err)
			}
			manageErrs = append(manageErrs, fmt.Sprintf("keystone-manage %s: %v", args[0], err))
		}
	}
	ks.cmd = exec.Command("uwsgi", keystoneconf.UwsgiArgs(port, "/usr/bin/keystone-wsgi-public")...)
	ks.cmd.Env, ks.cmd.Stdout, ks.cmd.Stderr = env, logTo, logTo
	// Its own process group: stop ends the workers with the master.
	ks.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if err := ks.cmd.Start(); err != nil {
		return nil, err
	}
	deadline := time.Now().Add(3 * time.Minute)
	for {
		tok, err := ks.password(context.Background(), ksAdmin, ksAdminPwd, ksAdmin)
		if err == nil {
			ks.adminToken = tok
			return ks, nil
		}
		if time.Now().After(deadline) {
			ks.stop()
			// The folder goes with the test: say what it held.
			logTail, _ := os.ReadFile(logTo.Name())
			if len(logTail) > 4000 {
				logTail = logTail[len(logTail)-4000:]
			}
			return nil, fmt.Errorf("keystone under uwsgi did not answer in 3 minutes: %w (earlier: %v)\nlast lines of its log:\n%s", err, manageErrs, logTail)
		}
		time.Sleep(time.Second)
	}
}

func (ks *realKeystone) stop() {
	if ks.cmd == nil || ks.cmd.Process == nil {
		return
	}
	_ = syscall.Kill(-ks.cmd.Process.Pid, syscall.SIGTERM)
	done := make(chan struct{})
	go func() { _ = ks.cmd.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(20 * time.Second):
		_ = syscall.Kill(-ks.cmd.Process.Pid, syscall.SIGKILL)
		<-done
	}
}

// httpClient closes every connection after its exchange: uwsgi's workers
// drop idle keep-alive connections, which a reused one would then hit.
var httpClient = &http.Client{Timeout: time.Minute, Transport: &http.Transport{DisableKeepAlives: true}}

// call is one request to Keystone's API as admin; out, if not nil,
// receives the JSON answer.
func (ks *realKeystone) call(ctx context.Context, method, path string, in, out any) error {
	var body bytes.Buffer
	if in != nil {
		if err := json.NewEncoder(&body).Encode(in); err != nil {
			return err
		}
	}
	req, err := http.NewRequestWithContext(ctx, method, ks.AuthURL+path, &body)
	if err != nil {
		return err
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("X-Auth-Token", ks.adminToken)
	resp, err := httpClient.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	if resp.StatusCode >= 300 {
		var b bytes.Buffer
		_, _ = b.ReadFrom(resp.Body)
		return fmt.Errorf("keystone %s %s: %s %s", method, path, resp.Status, b.String())
	}
	if out != nil {
		return json.NewDecoder(resp.Body).Decode(out)
	}
	return nil
}

// password authenticates a user of the Default domain scoped to project
// and returns the token.
func (ks *realKeystone) password(ctx context.Context, user, pw, project string) (string, error) {
	in := map[string]any{"auth": map[string]any{
		"identity": map[string]any{"methods": []string{"password"}, "password": map[string]any{
			"user": map[string]any{"name": user, "password": pw, "domain": map[string]any{"name": ksDomain}}}},
		"scope": map[string]any{"project": map[string]any{"name": project, "domain": map[string]any{"name": ksDomain}}},
	}}
	b, _ := json.Marshal(in)
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, ks.AuthURL+"/auth/tokens", bytes.NewReader(b))
	if err != nil {
		return "", err
	}
	req.Header.Set("Content-Type", "application/json")
	resp, err := httpClient.Do(req)
	if err != nil {
		return "", err
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated {
		return "", fmt.Errorf("keystone: password authentication of %s: %s", user, resp.Status)
	}
	return resp.Header.Get("X-Subject-Token"), nil
}

// tokenCaller returns who holds a valid token: user, project and whether
// it has the admin role (GET /v3/auth/tokens as admin, as
// keystonemiddleware validates).
func (ks *realKeystone) tokenCaller(token string) (novatest.Caller, error) {
	req, err := http.NewRequest(http.MethodGet, ks.AuthURL+"/auth/tokens?nocatalog", nil)
	if err != nil {
		return novatest.Caller{}, err
	}
	req.Header.Set("X-Auth-Token", ks.adminToken)
	req.Header.Set("X-Subject-Token", token)
	resp, err := httpClient.Do(req)
	if err != nil {
		return novatest.Caller{}, err
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return novatest.Caller{}, fmt.Errorf("keystone: token validation: %s", resp.Status)
	}
	var out struct {
		Token struct {
			User struct {
				ID string `json:"id"`
			} `json:"user"`
			Project struct {
				ID string `json:"id"`
			} `json:"project"`
			Roles []struct {
				Name string `json:"name"`
			} `json:"roles"`
		} `json:"token"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&out); err != nil {
		return novatest.Caller{}, err
	}
	c := novatest.Caller{UserID: out.Token.User.ID, ProjectID: out.Token.Project.ID}
	for _, r := range out.Token.Roles {
		c.Admin = c.Admin || r.Name == "admin"
	}
	return c, nil
}

// id returns the ID of the named entity of a collection (projects, users,
// roles), by Keystone's ?name= filter.
func (ks *realKeystone) id(ctx context.Context, collection, name string) (string, error) {
	var out map[string]json.RawMessage // the collection and its "links"
	if err := ks.call(ctx, http.MethodGet, "/"+collection+"?name="+name, nil, &out); err != nil {
		return "", err
	}
	var items []struct {
		ID string `json:"id"`
	}
	if err := json.Unmarshal(out[collection], &items); err != nil {
		return "", err
	}
	if len(items) != 1 {
		return "", fmt.Errorf("keystone: %d %s named %s", len(items), collection, name)
	}
	return items[0].ID, nil
}

// create POSTs one entity and returns its ID.
func (ks *realKeystone) create(ctx context.Context, kind string, body map[string]any) (string, error) {
	var out map[string]struct {
		ID string `json:"id"`
	}
	if err := ks.call(ctx, http.MethodPost, "/"+kind+"s", map[string]any{kind: body}, &out); err != nil {
		return "", err
	}
	return out[kind].ID, nil
}

// addService publishes a service with its public, internal and admin
// endpoints at url in the catalog.
func (ks *realKeystone) addService(ctx context.Context, typ, name, url string) error {
	sid, err := ks.create(ctx, "service", map[string]any{"type": typ, "name": name})
	if err != nil {
		return err
	}
	for _, iface := range []string{"public", "internal", "admin"} {
		if _, err := ks.create(ctx, "endpoint", map[string]any{"service_id": sid, "interface": iface, "url": url, "region_id": ksRegion}); err != nil {
			return err
		}
	}
	return nil
}

// addUser creates a user with a role on an existing or new project.
func (ks *realKeystone) addUser(ctx context.Context, name, pw, project string, roles ...string) error {
	pid, err := ks.id(ctx, "projects", project)
	if err != nil {
		if pid, err = ks.create(ctx, "project", map[string]any{"name": project, "domain_id": "default"}); err != nil {
			return err
		}
	}
	uid, err := ks.create(ctx, "user", map[string]any{"name": name, "password": pw, "domain_id": "default", "default_project_id": pid})
	if err != nil {
		return err
	}
	for _, r := range roles {
		rid, err := ks.id(ctx, "roles", r)
		if err != nil {
			if rid, err = ks.create(ctx, "role", map[string]any{"name": r}); err != nil {
				return err
			}
		}
		if err := ks.call(ctx, http.MethodPut, "/projects/"+pid+"/users/"+uid+"/roles/"+rid, nil, nil); err != nil {
			return err
		}
	}
	return nil
}

// pythonEnv is the environment of Debian's OpenStack tools: /usr/bin
// first, so that their helpers run Debian's python3 (where the packages
// are), not another one on PATH (pyenv's, a virtualenv).
func pythonEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		if strings.HasPrefix(kv, "PATH=") || strings.HasPrefix(kv, "PYTHON") || strings.HasPrefix(kv, "VIRTUAL_ENV=") || strings.HasPrefix(kv, "OS_") {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "PATH=/usr/bin:/bin:/usr/sbin:/sbin:"+os.Getenv("PATH"), "PYTHON=/usr/bin/python3")
}
