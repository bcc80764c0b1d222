package main

import (
	"context"
	"errors"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/spf13/pflag"

	"github.com/openkeel/keel/internal/testing/keystonetest"
)

// The Keystone flags reach auth.Keystone: defaults, a TTL of 0 turning
// the cache off, and refusals of values that mean nothing.
func TestServeKeystoneFlags(t *testing.T) {
	parse := func(args ...string) *serveOptions {
		t.Helper()
		o := &serveOptions{}
		f := pflag.NewFlagSet("serve", pflag.ContinueOnError)
		o.keystoneFlags(f)
		if err := f.Parse(args); err != nil {
			t.Fatal(err)
		}
		return o
	}
	k, err := parse().keystoneAuth(nil)
	if err != nil {
		t.Fatal(err)
	}
	if k.CacheTTL != 5*time.Minute || k.Timeout != 10*time.Second {
		t.Fatalf("defaults: cache TTL %s, timeout %s; want 5m, 10s", k.CacheTTL, k.Timeout)
	}
	hc := &http.Client{}
	k, err = parse("--keystone-token-cache-ttl", "90s", "--keystone-timeout", "3s").keystoneAuth(hc)
	if err != nil {
		t.Fatal(err)
	}
	if k.CacheTTL != 90*time.Second || k.Timeout != 3*time.Second || k.HTTPClient != hc {
		t.Fatalf("cache TTL %s, timeout %s, HTTP client %p; want 90s, 3s, %p", k.CacheTTL, k.Timeout, k.HTTPClient, hc)
	}
	if k, err = parse("--keystone-token-cache-ttl", "0").keystoneAuth(nil); err != nil || k.CacheTTL >= 0 {
		t.Fatalf("--keystone-token-cache-ttl 0: CacheTTL %v, %v; want negative (off)", k, err)
	}
	for flag, args := range map[string][]string{
		"--keystone-token-cache-ttl": {"--keystone-token-cache-ttl", "-1s"},
		"--keystone-timeout":         {"--keystone-timeout", "0"},
	} {
		if _, err := parse(args...).keystoneAuth(nil); err == nil || !strings.Contains(err.Error(), flag) {
			t.Errorf("%v: error %v, want one naming %s", args, err, flag)
		}
	}
}

// A CA bundle keel cannot use stops keel serve before it starts anything,
// with an error naming --os-cacert; OS_CACERT is its default.
func TestServeOSCACertInvalid(t *testing.T) {
	dir := t.TempDir()
	notPEM := filepath.Join(dir, "not-a-ca.pem")
	if err := os.WriteFile(notPEM, []byte("not a certificate\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	// --kubeconfig that does not exist: had the CA bundle been accepted,
	// serve would fail on it instead, without starting anything either.
	base := []string{"--data-dir", dir, "--kubeconfig", filepath.Join(dir, "missing.kubeconfig"),
		"--auth", "keystone", "--keystone-url", "http://127.0.0.1:1/v3", "--log-level", "error"}
	run := func(args ...string) error {
		cmd := serveCmd()
		cmd.SetArgs(append(append([]string{}, base...), args...))
		cmd.SetOut(io.Discard)
		cmd.SetErr(io.Discard)
		return cmd.ExecuteContext(context.Background())
	}
	for name, path := range map[string]string{"missing": filepath.Join(dir, "missing.pem"), "not PEM": notPEM} {
		err := run("--os-cacert", path)
		if err == nil || !strings.Contains(err.Error(), "--os-cacert") || !strings.Contains(err.Error(), path) {
			t.Errorf("%s CA bundle: error %v, want one naming --os-cacert and %s", name, err, path)
		}
	}
	if err := run("--os-cacert", notPEM); errors.Is(err, os.ErrNotExist) {
		t.Errorf("a file without certificates reported as missing: %v", err)
	}
	t.Setenv("OS_CACERT", notPEM)
	if err := run(); err == nil || !strings.Contains(err.Error(), "--os-cacert") {
		t.Errorf("OS_CACERT=%s: error %v, want one naming --os-cacert", notPEM, err)
	}
}

// --os-cacert reaches both clients that talk to OpenStack: the token
// validator and the lookups' service user. Against a Keystone with a
// private CA, both get through with the bundle and fail TLS without it.
func TestServeOSCACertWiring(t *testing.T) {
	ks := keystonetest.NewTLS(t)
	ks.AddUser(keystonetest.User{ID: "alice-id", Name: "alice", Password: "pw", ProjectID: "p1", ProjectName: "one", Roles: []string{"member"}})
	for _, typ := range []string{"compute", "image", "network", "volumev3"} {
		ks.AddEndpoint(typ, typ, ks.URL+"/"+typ)
	}
	t.Setenv("OS_USERNAME", keystonetest.ServiceUser)
	t.Setenv("OS_PASSWORD", keystonetest.ServicePass)
	t.Setenv("OS_PROJECT_NAME", keystonetest.ServiceProject)
	t.Setenv("OS_USER_DOMAIN_NAME", keystonetest.DomainName)
	t.Setenv("OS_PROJECT_DOMAIN_NAME", keystonetest.DomainName)
	tok := ks.Issue(t, "alice", 0)
	ctx := context.Background()

	for _, withCA := range []bool{true, false} {
		o := &serveOptions{keystoneURL: ks.AuthURL, keystoneTimeout: 10 * time.Second}
		if withCA {
			o.osCACert = ks.CACertFile(t)
		}
		hc, err := o.httpClient()
		if err != nil {
			t.Fatal(err)
		}
		k, err := o.keystoneAuth(hc)
		if err != nil {
			t.Fatal(err)
		}
		req, _ := http.NewRequest("GET", "/v1/clustertemplates", nil)
		req.Header.Set("X-Auth-Token", tok)
		creds, err := k.Authenticate(ctx, req)
		switch {
		case withCA && (err != nil || creds.UserID != "alice-id"):
			t.Errorf("token validation with the CA bundle: %+v, %v", creds, err)
		case !withCA && (err == nil || !strings.Contains(err.Error(), "certificate")):
			t.Errorf("token validation without the CA bundle: %+v, %v; want a certificate error", creds, err)
		}

		// The lookups authenticate keel's service user first: with the
		// bundle that succeeds (the fake has no Nova, so the lookup itself
		// fails afterwards), without it TLS refuses Keystone.
		auths := ks.Authentications()
		_, err = o.openstackClient(hc).Flavor(ctx, "m1.small")
		gotThrough := ks.Authentications() > auths
		switch {
		case withCA && (!gotThrough || err != nil && strings.Contains(err.Error(), "certificate")):
			t.Errorf("lookup with the CA bundle did not authenticate: %v", err)
		case !withCA && (gotThrough || err == nil || !strings.Contains(err.Error(), "certificate")):
			t.Errorf("lookup without the CA bundle: %v; want a certificate error", err)
		}
	}
}
