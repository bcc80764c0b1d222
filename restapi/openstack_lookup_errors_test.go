package restapi

import (
	"testing"
)

// A reference OpenStack does not know, or knows several of, is refused
// with Magnum's status and message, and nothing is committed.
func TestOpenStackLookupErrors(t *testing.T) {
	cloud := newMemCloud()
	a := newTestAPI(t, func(c *Config) { c.Cloud = cloud })
	tm := a.template(member, "t1", nil) // resolvable: ubuntu-2204-kube, m1.medium, m1.large, public

	tmpl := func(over map[string]any) map[string]any {
		b := map[string]any{"coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "m1.medium",
			"external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		want   string
	}{
		{"image missing", tmpl(map[string]any{"image_id": "nope"}), 400, "Image nope could not be found."},
		{"image ambiguous", tmpl(map[string]any{"image_id": "dup-image"}), 409, "Multiple images exist with same name dup-image. Please use the resource id instead."},
		{"flavor missing", tmpl(map[string]any{"flavor_id": "m9.huge"}), 400, "Unable to find flavor m9.huge."},
		{"master flavor missing", tmpl(map[string]any{"master_flavor_id": "m9.huge"}), 400, "Unable to find flavor m9.huge."},
		{"external network missing", tmpl(map[string]any{"external_network_id": "private"}), 400, "External network private could not be found."},
		{"external network ambiguous", tmpl(map[string]any{"external_network_id": "dup-net"}), 409, "Multiple external networks exist with same name 'dup-net'. Please use the external network ID instead."},
		{"fixed network missing", tmpl(map[string]any{"fixed_network": "mynet"}), 400, "Fixed network mynet could not be found."},
	} {
		t.Run("template "+tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "", "POST", "/v1/clustertemplates", tc.body), tc.status, tc.want)
			})
		})
	}

	cluster := func(over map[string]any) map[string]any {
		b := map[string]any{"name": "c1", "cluster_template_id": tm.UUID, "master_count": 1, "node_count": 1}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	for _, tc := range []struct {
		name   string
		body   map[string]any
		status int
		want   string
	}{
		{"flavor missing", cluster(map[string]any{"flavor_id": "m9.huge"}), 400, "Unable to find flavor m9.huge."},
		{"master flavor missing", cluster(map[string]any{"master_flavor_id": "m9.huge"}), 400, "Unable to find flavor m9.huge."},
		{"fixed subnet missing", cluster(map[string]any{"fixed_subnet": "mysubnet"}), 400, "Fixed subnet mysubnet could not be found."},
		{"keypair missing", cluster(map[string]any{"keypair": "otherkey"}), 404, "Unable to find keypair otherkey."},
		{"volume type missing", cluster(map[string]any{"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_type": "hdd"}}), 400, "Valid volume type hdd could not be found in cinder."},
	} {
		t.Run("cluster "+tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "1.10", "POST", "/v1/clusters", tc.body), tc.status, tc.want)
			})
		})
	}

	// A nodegroup with an unknown flavor: 400, nothing committed.
	id := a.cluster(member, "c2", tm.UUID, 1)
	a.complete(id)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.9", "POST", "/v1/clusters/c2/nodegroups", `{"name": "gpu", "flavor_id": "m9.huge"}`), 400, "Unable to find flavor m9.huge.")
	})
}
