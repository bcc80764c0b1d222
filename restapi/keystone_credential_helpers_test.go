package restapi

import (
	"net/http"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
)

// withKeyring gives a Keystone API keel's age identity, as `keel serve`
// has one: clusters get their Secrets, hence a clouds.yaml to fill.
func (a *keystoneCloudAPI) withKeyring(t *testing.T) *secrets.Keyring {
	t.Helper()
	kr, _, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	a.api.cfg.Secrets = &repo.Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: a.ks.AuthURL}}
	return kr
}

// createP1Cluster creates a template and cluster name as alice, with her
// token, and returns the response.
func (a *keystoneCloudAPI) createP1Cluster(t *testing.T, tok, tmplID, name string) response {
	t.Helper()
	return a.doToken(tok, "POST", "/v1/clusters", map[string]any{"name": name, "cluster_template_id": tmplID,
		"master_count": 1, "node_count": 1, "keypair": "alice-key"})
}

// createP1TemplateAndCluster creates template t1 and cluster name on it as
// alice, with her token tok, and returns the cluster's UUID.
func (a *keystoneCloudAPI) createP1TemplateAndCluster(t *testing.T, tok, name string) string {
	t.Helper()
	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	if r = a.createP1Cluster(t, tok, tmplID, name); r.status != http.StatusAccepted {
		t.Fatalf("cluster: %d %s", r.status, r.body)
	}
	uuid, _ := r.json(t)["uuid"].(string)
	return uuid
}

// cloudConfig decrypts HEAD's rendered cloud-config Secret.
func (a *keystoneCloudAPI) cloudConfig(t *testing.T, kr *secrets.Keyring) *corev1.Secret {
	t.Helper()
	plain, err := kr.Decrypt([]byte(a.readFile(t, "secret-cloud-config.yaml")))
	if err != nil {
		t.Fatal(err)
	}
	var s corev1.Secret
	if err := yaml.Unmarshal(plain, &s); err != nil {
		t.Fatal(err)
	}
	return &s
}
