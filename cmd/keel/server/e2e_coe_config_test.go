package server

import (
	"bytes"
	"crypto/tls"
	"encoding/base64"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"sigs.k8s.io/yaml"
)

// `openstack coe cluster config` (python-magnumclient) against keel
// writes a kubeconfig whose client certificate (CN=admin,
// O=system:masters, signed through POST /v1/certificates) verifies against
// the cluster CA it fetched, and whose key matches the certificate. Skipped
// without the CLI, unless KEEL_REQUIRE_OPENSTACK_CLI=1.
func TestOpenstackCoeClusterConfig(t *testing.T) {
	cli, err := exec.LookPath("openstack")
	if err != nil {
		if os.Getenv("KEEL_REQUIRE_OPENSTACK_CLI") == "1" {
			t.Fatal("the openstack CLI (python3-magnumclient) is not installed and KEEL_REQUIRE_OPENSTACK_CLI=1")
		}
		t.Skip("openstack CLI not installed")
	}
	in, sc := startRealKeelWith(t, "1.12", nil)
	uuid := newCertCluster(t, sc, "cfg")
	cl := waitClusterStatus(t, sc, uuid, "CREATE_COMPLETE")

	dir := t.TempDir()
	cmd := exec.Command(cli, "--os-auth-type", "none", "--os-endpoint", in.URL+"/v1",
		"coe", "cluster", "config", "cfg", "--dir", dir)
	cmd.Env = append(os.Environ(), "HOME="+t.TempDir())
	if os.Getenv("SHELL") == "" {
		// python-magnumclient reads os.environ['SHELL'] (KeyError without it),
		// and CI runs without one.
		cmd.Env = append(cmd.Env, "SHELL=/bin/sh")
	}
	done := make(chan struct{})
	var out []byte
	go func() { out, err = cmd.CombinedOutput(); close(done) }()
	select {
	case <-done:
	case <-time.After(2 * time.Minute):
		_ = cmd.Process.Kill()
		<-done
		t.Fatalf("openstack coe cluster config timed out:\n%s", out)
	}
	if err != nil {
		t.Fatalf("openstack coe cluster config: %v\n%s", err, out)
	}
	data, err := os.ReadFile(filepath.Join(dir, "config"))
	if err != nil {
		t.Fatalf("no kubeconfig written: %v\n%s", err, out)
	}
	var kc struct {
		Clusters []struct {
			Cluster struct {
				CA     string `json:"certificate-authority-data"`
				Server string `json:"server"`
			} `json:"cluster"`
		} `json:"clusters"`
		Users []struct {
			User struct {
				Cert string `json:"client-certificate-data"`
				Key  string `json:"client-key-data"`
			} `json:"user"`
		} `json:"users"`
	}
	if err := yaml.Unmarshal(data, &kc); err != nil || len(kc.Clusters) != 1 || len(kc.Users) != 1 {
		t.Fatalf("kubeconfig: %v\n%s", err, data)
	}
	if kc.Clusters[0].Cluster.Server != cl.APIAddress {
		t.Errorf("server %q, api_address %q", kc.Clusters[0].Cluster.Server, cl.APIAddress)
	}
	decode := func(s string) []byte {
		b, err := base64.StdEncoding.DecodeString(s)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	caPEM, certPEM, keyPEM := decode(kc.Clusters[0].Cluster.CA), decode(kc.Users[0].User.Cert), decode(kc.Users[0].User.Key)
	verifyClientCert(t, caPEM, certPEM)
	if _, err := tls.X509KeyPair(certPEM, keyPEM); err != nil {
		t.Errorf("client key does not match the certificate: %v", err)
	}
	resp, err := certificatesGet(in.URL, uuid)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(bytes.TrimSpace(resp), bytes.TrimSpace(caPEM)) {
		t.Error("the kubeconfig's CA is not the cluster CA")
	}
}
