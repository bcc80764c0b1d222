package restapi

import (
	"net/http"
	"strings"
	"testing"
)

// Against the real cloud (--auth keystone --openstack-lookups real), the
// lookups run as the caller: their project's private image and their own
// keypair resolve (keel's service user would find neither: the keypair is
// looked up without a user_id, so only as its owner), and the facts record
// what they resolved to. Another user's keypair is Nova's 404, and a
// flavor nobody made is a 400 that names it; neither commits anything.
// The caller's token is never written to Git, the read model or the logs.
func TestRealOpenStackLookupsRunAsTheCaller(t *testing.T) {
	a, cloud, _ := newRealCloudAPI(t)
	p, other := cloud.NewProject(t), cloud.NewProject(t)
	image := p.PrivateImage(t, "my-private-image", map[string]string{"os_distro": "ubuntu"})
	p.Keypair(t, "my-key")
	other.Keypair(t, "their-key")
	tok := p.Token(t)

	tmpl := a.realTemplate(t, tok, "my-private-image", cloud)
	uuid := a.realCluster(t, tok, tmpl, "c1", "my-key", nil)
	facts := a.readFile(t, "facts.yaml")
	if !strings.Contains(facts, image) {
		t.Errorf("facts.yaml of %s lacks the private image's ID %s:\n%s", uuid, image, facts)
	}

	a.expectNoCommit(func() {
		body := map[string]any{"name": "c2", "cluster_template_id": tmpl, "master_count": 1, "node_count": 1, "keypair": "their-key"}
		expectError(t, a.doToken(tok, "POST", "/v1/clusters", body), http.StatusNotFound, "Unable to find keypair their-key.")
		expectError(t, a.doToken(tok, "POST", "/v1/clustertemplates", map[string]any{"name": "t2", "coe": "kubernetes",
			"image_id": "my-private-image", "flavor_id": "m9.nonexistent", "external_network_id": cloud.ExternalNetwork,
			"labels": map[string]string{"kube_tag": "v1.33.4"}}), http.StatusBadRequest, "Unable to find flavor m9.nonexistent.")
	})
	a.expectNowhere(t, tok)
}
