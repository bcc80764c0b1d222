package restapi

import (
	"testing"

	"github.com/openkeel/keel/internal/openstack"
)

// templateLookupCloud is the test cloud plus what template patches name:
// a fixed network and subnet, 0 GB root disk flavors.
func templateLookupCloud() *memCloud {
	cloud := rootVolumeCloud()
	cloud.nets = append(cloud.nets, openstack.Network{ID: "6f1d8e8b-aaaa-4f0e-8c1e-0b9a8f7e6d51", Name: "private"})
	cloud.subnets = append(cloud.subnets, openstack.Subnet{ID: "7a2e9f9c-aaaa-4f0e-8c1e-0b9a8f7e6d51", Name: "private-subnet",
		NetworkID: "6f1d8e8b-aaaa-4f0e-8c1e-0b9a8f7e6d51"})
	return cloud
}

// A template PATCH that changes an OpenStack reference resolves it as the
// template create does, with the same status and message, and commits
// nothing when it fails.
func TestTemplateUpdateLookupErrors(t *testing.T) {
	a := newTestAPI(t, func(c *Config) { c.Cloud = templateLookupCloud() })
	a.template(member, "t1", nil) // ubuntu-2204-kube, m1.medium, m1.large, public
	r := a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
		"name": "bv", "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "z1.zero",
		"external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "20"},
	})
	if r.status != 201 {
		t.Fatalf("template bv: %d %s", r.status, r.body)
	}
	for _, tc := range []struct {
		name, template, patch string
		status                int
		want                  string
	}{
		{"image missing", "t1", `[{"op":"replace","path":"/image_id","value":"nope"}]`, 400, "Image nope could not be found."},
		{"image ambiguous", "t1", `[{"op":"replace","path":"/image_id","value":"dup-image"}]`, 409,
			"Multiple images exist with same name dup-image. Please use the resource id instead."},
		{"flavor missing", "t1", `[{"op":"replace","path":"/flavor_id","value":"m9.huge"}]`, 400, "Unable to find flavor m9.huge."},
		{"master flavor missing", "t1", `[{"op":"replace","path":"/master_flavor_id","value":"m9.huge"}]`, 400, "Unable to find flavor m9.huge."},
		{"external network missing", "t1", `[{"op":"replace","path":"/external_network_id","value":"private"}]`, 400,
			"External network private could not be found."},
		{"external network ambiguous", "t1", `[{"op":"replace","path":"/external_network_id","value":"dup-net"}]`, 409,
			"Multiple external networks exist with same name 'dup-net'. Please use the external network ID instead."},
		{"fixed network missing", "t1", `[{"op":"replace","path":"/fixed_network","value":"mynet"}]`, 400, "Fixed network mynet could not be found."},
		{"fixed subnet missing", "t1", `[{"op":"replace","path":"/fixed_subnet","value":"mysubnet"}]`, 400, "Fixed subnet mysubnet could not be found."},
		{"volume type missing", "t1", `[{"op":"add","path":"/labels/docker_volume_type","value":"hdd"}]`, 400,
			"Valid volume type hdd could not be found in cinder."},
		{"zero root disk flavor", "t1", `[{"op":"replace","path":"/master_flavor_id","value":"z2.zero"}]`, 400, zeroDiskDetail("z2.zero")},
		{"boot volume removed", "bv", `[{"op":"remove","path":"/labels/boot_volume_size"}]`, 400, zeroDiskDetail("z1.zero")},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "", "PATCH", "/v1/clustertemplates/"+tc.template, tc.patch), tc.status, tc.want)
			})
		})
	}
}

// A PATCH asks OpenStack only about the references it changes: a valid
// change is committed with one lookup per new reference, and a template
// whose unchanged image has since disappeared can still be renamed.
// keypair_id is not checked (the template create does not check it
// either: it is the cluster creator's keypair, checked at cluster create).
func TestTemplateUpdateLookupsChangedOnly(t *testing.T) {
	cloud := templateLookupCloud()
	a := newTestAPI(t, func(c *Config) { c.Cloud = cloud })
	for _, tc := range []struct {
		name, patch string
		lookups     int
		check       func(map[string]any) bool
	}{
		{"flavor", `[{"op":"replace","path":"/flavor_id","value":"g1.gpu"}]`, 1,
			func(m map[string]any) bool { return m["flavor_id"] == "g1.gpu" }},
		// The image's os_distro is not re-derived into cluster_distro.
		{"image by UUID", `[{"op":"replace","path":"/image_id","value":"8d4f6a2e-1111-4a55-9e0b-3f1d2c4b5a61"}]`, 1,
			func(m map[string]any) bool { return m["image_id"] == "8d4f6a2e-1111-4a55-9e0b-3f1d2c4b5a61" }},
		{"fixed network and subnet", `[{"op":"replace","path":"/fixed_network","value":"private"},` +
			`{"op":"replace","path":"/fixed_subnet","value":"private-subnet"}]`, 2,
			func(m map[string]any) bool { return m["fixed_subnet"] == "private-subnet" }},
		// memCloud counts resolutions only, not volume type checks.
		{"volume type", `[{"op":"add","path":"/labels/boot_volume_type","value":"ssd"}]`, 0,
			func(m map[string]any) bool { return m["labels"].(map[string]any)["boot_volume_type"] == "ssd" }},
		// The new labels count: a 0 GB root disk flavor with a boot volume
		// in the same patch is accepted (Magnum checks the old labels).
		{"zero root disk flavor with boot volume", `[{"op":"replace","path":"/flavor_id","value":"z1.zero"},` +
			`{"op":"add","path":"/labels/boot_volume_size","value":"20"}]`, 1,
			func(m map[string]any) bool { return m["flavor_id"] == "z1.zero" }},
		{"keypair not checked", `[{"op":"replace","path":"/keypair_id","value":"otherkey"}]`, 0,
			func(m map[string]any) bool { return m["keypair_id"] == "otherkey" }},
		{"name only", `[{"op":"replace","path":"/name","value":"renamed"}]`, 0,
			func(m map[string]any) bool { return m["name"] == "renamed" }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tm := a.template(member, "t-"+tc.name, nil)
			if tc.name == "name only" {
				// The template's image is gone: an unchanged reference is not
				// checked again.
				cloud.images = cloud.images[1:]
			}
			before, calls := a.head(), cloud.count()
			r := a.do(member, "", "PATCH", "/v1/clustertemplates/"+tm.UUID, tc.patch)
			if r.status != 200 {
				t.Fatalf("status %d: %s", r.status, r.body)
			}
			if a.head() == before {
				t.Fatal("the PATCH made no commit")
			}
			if !tc.check(r.json(t)) {
				t.Fatalf("patched template: %s", r.body)
			}
			if n := cloud.count() - calls; n != tc.lookups {
				t.Fatalf("%d OpenStack lookups, want %d", n, tc.lookups)
			}
		})
	}
}
