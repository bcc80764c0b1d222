package restapi

import (
	"net/http"
	"testing"

	"github.com/openkeel/keel/internal/openstack"
)

// Every document a request writes is checked against the CUE schema `cue
// vet` uses before the commit: a rule only the schema states (the master
// nodegroup's odd size, the supported distros) refuses the request with a
// 400 naming the document, the field and what is allowed, and main does
// not move.
func TestCUEValidationBeforeCommit(t *testing.T) {
	cloud := newMemCloud()
	cloud.images = append(cloud.images, openstack.Image{UUID: "8d4f6a2e-4444-4a55-9e0b-3f1d2c4b5a64", Name: "fcos", OSDistro: "fedora-coreos"})
	a := newTestAPI(t, func(c *Config) { c.Cloud = cloud })
	r := a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
		"name": "ha", "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "3", "master_flavor_id": "4",
		"external_network_id": "public", "master_lb_enabled": true, "labels": map[string]string{"kube_tag": "v1.33.4"},
	})
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmpl := r.json(t)["uuid"].(string)

	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{"name": "even", "cluster_template_id": tmpl, "master_count": 2}),
			http.StatusBadRequest, "Invalid nodegroup default-master: node_count: \"2\": master nodegroup size of 2 is invalid, size cannot be an even number")
	})

	id := a.cluster(member, "prod", tmpl, 1)
	a.complete(id)
	for _, tc := range []struct{ body, want string }{
		{`{"node_count": 2, "nodegroup": "default-master"}`, "Invalid nodegroup default-master: node_count: \"2\": master nodegroup size of 2 is invalid, size cannot be an even number"},
		{`{"node_count": 0, "nodegroup": "default-master"}`, "Invalid nodegroup default-master: node_count: \"0\": the master nodegroup needs at least 1 node"},
	} {
		a.expectNoCommit(func() {
			expectError(t, a.do(member, "1.10", "POST", "/v1/clusters/prod/actions/resize", tc.body), http.StatusBadRequest, tc.want)
		})
	}

	// The image's os_distro becomes the template's cluster_distro, which the
	// Cluster API driver supports for a few distributions only.
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
			"name": "fcos", "coe": "kubernetes", "image_id": "fcos", "labels": map[string]string{"kube_tag": "v1.33.4"},
		}), http.StatusBadRequest, "cluster_distro: \"fedora-coreos\": must start with ubuntu, debian, flatcar or rockylinux")
	})
}
