package restapi

import (
	"log/slog"
	"net/http"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/auth"
)

// newRealCloudAPI is keel under --auth keystone --openstack-lookups real
// against the test cloud (hack/openstack.sh): its Keystone validates the
// callers' tokens with keel's service user, and the real openstack.Client
// asks its Nova, Glance, Neutron and Cinder. keel has its age identity
// (clusters get a clouds.yaml); it is returned for decrypting.
func newRealCloudAPI(t *testing.T) (*keystoneCloudAPI, *realopenstack.Cloud, *secrets.Keyring) {
	t.Helper()
	cloud := realopenstack.Attach(t)
	service := cloud.ServiceAuth()
	lookupAuth := service
	service.IdentityEndpoint = ""
	ks := &auth.Keystone{AuthURL: cloud.AuthURL, Service: service}
	client := openstack.New(openstack.Options{Auth: lookupAuth, Region: cloud.Region})
	kr, _, err := secrets.GenerateKeyring()
	if err != nil {
		t.Fatal(err)
	}
	log := &syncBuffer{}
	a := newTestAPI(t, func(c *Config) {
		c.Auth, c.AuthURL, c.Cloud = ks, cloud.AuthURL, client
		c.Log = slog.New(slog.NewTextHandler(log, &slog.HandlerOptions{Level: slog.LevelDebug}))
		c.Secrets = &repo.Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: cloud.AuthURL}}
	})
	return &keystoneCloudAPI{keystoneAPI: &keystoneAPI{testAPI: a, auth: ks}, log: log}, cloud, kr
}

// realTemplate creates, with tok, a template of image and the stack's
// public flavor and external network; it returns its UUID.
func (a *keystoneCloudAPI) realTemplate(t *testing.T, tok, image string, cloud *realopenstack.Cloud) string {
	t.Helper()
	r := a.doToken(tok, "POST", "/v1/clustertemplates", map[string]any{"name": "t1", "coe": "kubernetes",
		"image_id": image, "flavor_id": "m1.small", "master_flavor_id": "m1.medium",
		"external_network_id": cloud.ExternalNetwork, "labels": map[string]string{"kube_tag": "v1.33.4"}})
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	id, _ := r.json(t)["uuid"].(string)
	return id
}

// realCluster creates, with tok, a cluster of the template with keypair.
func (a *keystoneCloudAPI) realCluster(t *testing.T, tok, tmplID, name, keypair string, labels map[string]string) string {
	t.Helper()
	body := map[string]any{"name": name, "cluster_template_id": tmplID, "master_count": 1, "node_count": 1, "keypair": keypair}
	if labels != nil {
		body["labels"], body["merge_labels"] = labels, true
	}
	r := a.doToken(tok, "POST", "/v1/clusters", body)
	if r.status != http.StatusAccepted {
		t.Fatalf("cluster %s: %d %s", name, r.status, r.body)
	}
	id, _ := r.json(t)["uuid"].(string)
	return id
}
