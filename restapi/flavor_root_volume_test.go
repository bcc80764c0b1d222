package restapi

import (
	"context"
	"encoding/json"
	"path"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/schemas"
)

// rootVolumeTitle is Magnum's FlavorZeroRootVolumeNotSupported message up
// to its first '.', i.e. the error's title.
const rootVolumeTitle = "Flavor with zero root volume size is not supported when boot_volume_size is zero"

// zeroDiskDetail is the whole detail keel gives for flavor ref (name).
func zeroDiskDetail(which string) string {
	return rootVolumeTitle + ". Flavor " + which + " has a 0 GB root disk: set the boot_volume_size label to the size in GB of a boot volume, or use a flavor with a root disk."
}

// expectRootVolumeError checks the 400 FlavorZeroRootVolumeNotSupported:
// status, Magnum's title, and the detail naming the flavor.
func expectRootVolumeError(t *testing.T, r response, which string) {
	t.Helper()
	expectError(t, r, 400, zeroDiskDetail(which))
	var body struct {
		Errors []struct{ Title string } `json:"errors"`
	}
	// Magnum's own title first, then which flavor and what to do (Magnum
	// cut the title at the first '.').
	want := strings.TrimSuffix(zeroDiskDetail(which), ".")
	if err := json.Unmarshal(r.body, &body); err != nil || body.Errors[0].Title != want {
		t.Fatalf("title of %s, want %q", r.body, want)
	}
}

// rootVolumeCloud is the test cloud plus flavors with a 0 GB root disk.
func rootVolumeCloud() *memCloud {
	cloud := newMemCloud()
	cloud.flavors = append(cloud.flavors,
		openstack.Flavor{ID: "7", Name: "z1.zero", VCPUs: 2, RAMMiB: 4096},
		openstack.Flavor{ID: "8", Name: "z2.zero", VCPUs: 4, RAMMiB: 8192})
	return cloud
}

// recordedFlavor reads the flavor facts a cluster's folder records.
func recordedFlavor(t *testing.T, a *testAPI, clusterUUID, ref string) (string, intent.Flavor, bool) {
	t.Helper()
	v, err := a.db.GetClusterByUUID(context.Background(), clusterUUID)
	if err != nil || v == nil {
		t.Fatalf("cluster %s: %v", clusterUUID, err)
	}
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	data, err := sn.ReadFile(path.Join(v.Dir, intent.FactsFile))
	if err != nil {
		t.Fatal(err)
	}
	f, err := intent.ParseFacts(data)
	if err != nil {
		t.Fatal(err)
	}
	name := f.FlavorNames[ref]
	size, ok := f.Flavors[name]
	return name, size, ok
}

// A template whose flavor has a 0 GB root disk needs boot_volume_size > 0
// (Magnum's check on template create), else 400 and no commit.
func TestFlavorRootVolumeTemplateCreate(t *testing.T) {
	a := newTestAPI(t, func(c *Config) { c.Cloud = rootVolumeCloud() })
	body := func(over map[string]any) map[string]any {
		b := map[string]any{"coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "m1.medium",
			"master_flavor_id": "m1.large", "external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}}
		for k, v := range over {
			b[k] = v
		}
		return b
	}
	for _, tc := range []struct {
		name  string
		body  map[string]any
		which string // "" = accepted
	}{
		{"zero flavor", body(map[string]any{"flavor_id": "z1.zero"}), "z1.zero"},
		{"zero master flavor by ID", body(map[string]any{"master_flavor_id": "7"}), "7 (z1.zero)"},
		{"explicit boot_volume_size 0", body(map[string]any{"flavor_id": "z2.zero",
			"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "0"}}), "z2.zero"},
		{"boot volume given", body(map[string]any{"flavor_id": "z1.zero", "master_flavor_id": "z2.zero",
			"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "20"}}), ""},
		{"flavors with a disk", body(nil), ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.head()
			r := a.do(member, "", "POST", "/v1/clustertemplates", tc.body)
			if tc.which != "" {
				expectRootVolumeError(t, r, tc.which)
				if a.head() != before {
					t.Fatalf("HEAD moved on a refused template:\n%s", a.lastCommit())
				}
				return
			}
			if r.status != 201 || a.head() == before {
				t.Fatalf("status %d (HEAD moved: %v): %s", r.status, a.head() != before, r.body)
			}
		})
	}
}

// A cluster whose effective flavors (its own, else the template's) have a
// 0 GB root disk needs boot_volume_size > 0 in its labels. The answer of
// Nova is recorded in the cluster's facts.
func TestFlavorRootVolumeClusterCreate(t *testing.T) {
	a := newTestAPI(t, func(c *Config) { c.Cloud = rootVolumeCloud() })
	plain := a.template(member, "plain", nil) // m1.medium, m1.large
	r := a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
		"name": "bv", "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "z1.zero", "master_flavor_id": "z1.zero",
		"external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "20"},
	})
	if r.status != 201 {
		t.Fatalf("template bv: %d %s", r.status, r.body)
	}
	bv := r.json(t)["uuid"].(string)

	for _, tc := range []struct {
		name  string
		body  map[string]any
		which string // "" = accepted
	}{
		{"zero worker flavor", map[string]any{"cluster_template_id": plain.UUID, "flavor_id": "z1.zero"}, "z1.zero"},
		{"zero master flavor by ID", map[string]any{"cluster_template_id": plain.UUID, "master_flavor_id": "8"}, "8 (z2.zero)"},
		// Labels given without merge_labels replace the template's, and
		// with them its boot_volume_size.
		{"template boot volume replaced", map[string]any{"cluster_template_id": bv,
			"labels": map[string]string{"kube_tag": "v1.33.4"}}, "z1.zero"},
		{"boot_volume_size 0 merged", map[string]any{"cluster_template_id": bv, "merge_labels": true,
			"labels": map[string]string{"boot_volume_size": "0"}}, "z1.zero"},
		{"template boot volume", map[string]any{"cluster_template_id": bv}, ""},
		{"cluster boot volume", map[string]any{"cluster_template_id": plain.UUID, "flavor_id": "z2.zero",
			"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "30"}}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.head()
			r := a.do(member, "1.10", "POST", "/v1/clusters", tc.body)
			if tc.which != "" {
				expectRootVolumeError(t, r, tc.which)
				if a.head() != before {
					t.Fatalf("HEAD moved on a refused cluster:\n%s", a.lastCommit())
				}
				return
			}
			if r.status != 202 || a.head() == before {
				t.Fatalf("status %d (HEAD moved: %v): %s", r.status, a.head() != before, r.body)
			}
			ref := "z1.zero"
			if f, ok := tc.body["flavor_id"].(string); ok {
				ref = f
			}
			name, size, ok := recordedFlavor(t, a, r.json(t)["uuid"].(string), ref)
			if name != ref || !ok || size.DiskGiB != 0 || size.VCPUs == 0 {
				t.Fatalf("facts for %s: name %q, size %+v (recorded %v)", ref, name, size, ok)
			}
		})
	}
}

// A new nodegroup on a 0 GB root disk flavor needs boot_volume_size > 0 in
// the labels it runs with: its own over the cluster's (what the compiler
// renders; Magnum reads the cluster's only).
func TestFlavorRootVolumeNodeGroupCreate(t *testing.T) {
	a := newTestAPI(t, func(c *Config) { c.Cloud = rootVolumeCloud() })
	tm := a.template(member, "t1", nil)
	plain := a.cluster(member, "plain", tm.UUID, 1)
	a.complete(plain)
	r := a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{"name": "withbv", "cluster_template_id": tm.UUID,
		"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "20"}})
	if r.status != 202 {
		t.Fatalf("cluster withbv: %d %s", r.status, r.body)
	}
	withBV := r.json(t)["uuid"].(string)
	a.complete(withBV)

	for _, tc := range []struct {
		name, cluster string
		body          map[string]any
		which         string // "" = accepted
	}{
		{"cluster labels inherited", "plain", map[string]any{"name": "ng1", "flavor_id": "z1.zero"}, "z1.zero"},
		{"boot_volume_size 0 merged", "withbv", map[string]any{"name": "ng2", "flavor_id": "8",
			"merge_labels": true, "labels": map[string]string{"boot_volume_size": "0"}}, "8 (z2.zero)"},
		// Labels without merge_labels do not drop the cluster's boot
		// volume: the compiler falls back to the cluster's labels.
		{"cluster boot volume under own labels", "withbv", map[string]any{"name": "ng3", "flavor_id": "z1.zero",
			"labels": map[string]string{"kube_tag": "v1.33.4"}}, ""},
		{"nodegroup boot volume", "plain", map[string]any{"name": "ng4", "flavor_id": "z1.zero",
			"merge_labels": true, "labels": map[string]string{"boot_volume_size": "25"}}, ""},
		{"cluster boot volume inherited", "withbv", map[string]any{"name": "ng5", "flavor_id": "z2.zero"}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.head()
			r := a.do(member, "1.9", "POST", "/v1/clusters/"+tc.cluster+"/nodegroups", tc.body)
			if tc.which != "" {
				expectRootVolumeError(t, r, tc.which)
				if a.head() != before {
					t.Fatalf("HEAD moved on a refused nodegroup:\n%s", a.lastCommit())
				}
				return
			}
			if r.status != 202 || a.head() == before {
				t.Fatalf("status %d (HEAD moved: %v): %s", r.status, a.head() != before, r.body)
			}
			id := plain
			if tc.cluster == "withbv" {
				id = withBV
			}
			ref := tc.body["flavor_id"].(string)
			if name, size, ok := recordedFlavor(t, a, id, ref); name != ref || !ok || size.DiskGiB != 0 {
				t.Fatalf("facts for %s: name %q, size %+v (recorded %v)", ref, name, size, ok)
			}
		})
	}
}

// An upgrade to a template that drops boot_volume_size leaves the cluster's
// 0 GB root disk flavors without a boot volume: refused, nothing
// committed. One that keeps a boot volume goes through.
func TestFlavorRootVolumeUpgrade(t *testing.T) {
	a := newTestAPI(t, func(c *Config) { c.Cloud = rootVolumeCloud() })
	mk := func(name string, over map[string]any) string {
		b := map[string]any{"name": name, "coe": "kubernetes", "image_id": "ubuntu-2204-kube",
			"external_network_id": "public", "master_lb_enabled": true}
		for k, v := range over {
			b[k] = v
		}
		r := a.do(member, "", "POST", "/v1/clustertemplates", b)
		if r.status != 201 {
			t.Fatalf("template %s: %d %s", name, r.status, r.body)
		}
		return r.json(t)["uuid"].(string)
	}
	from := mk("from", map[string]any{"flavor_id": "z1.zero", "master_flavor_id": "z2.zero",
		"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "20"}})
	// Templates without flavors pass their own check; the cluster keeps
	// the flavors it was created with.
	noBV := mk("nobv", map[string]any{"labels": map[string]string{"kube_tag": "v1.33.4"}})
	bigger := mk("bigger", map[string]any{"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_size": "40"}})
	id := a.cluster(member, "c1", from, 1)
	a.complete(id)

	for _, tc := range []struct {
		name, template, which string // which "" = accepted
	}{
		{"boot volume dropped", noBV, "z1.zero"},
		{"boot volume kept", bigger, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			before := a.head()
			r := a.do(member, "1.8", "POST", "/v1/clusters/c1/actions/upgrade", map[string]any{"cluster_template": tc.template})
			if tc.which != "" {
				expectRootVolumeError(t, r, tc.which)
				if a.head() != before {
					t.Fatalf("HEAD moved on a refused upgrade:\n%s", a.lastCommit())
				}
				return
			}
			if r.status != 202 || a.head() == before {
				t.Fatalf("status %d (HEAD moved: %v): %s", r.status, a.head() != before, r.body)
			}
		})
	}
}

// Without lookups (openstack.Given) a flavor's disk is unknown: nothing is
// refused. A site default for boot_volume_size (Magnum's [cinder]
// default_boot_volume_size) gives every machine a boot volume.
func TestFlavorRootVolumeUnknownOrDefaulted(t *testing.T) {
	site, err := schemas.Default().WithSite([]byte(`site: defaults: boot_volume_size: "50"`))
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name   string
		mutate func(*Config)
	}{
		{"Given", func(*Config) {}},
		{"site default", func(c *Config) { c.Cloud, c.Catalogue = rootVolumeCloud(), site }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := newTestAPI(t, tc.mutate)
			r := a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{"name": "t0", "coe": "kubernetes",
				"image_id": "ubuntu-2204-kube", "flavor_id": "z1.zero", "master_flavor_id": "z1.zero",
				"external_network_id": "public", "labels": map[string]string{"kube_tag": "v1.33.4"}})
			if r.status != 201 {
				t.Fatalf("template: %d %s", r.status, r.body)
			}
			before := a.head()
			a.cluster(member, "c0", r.json(t)["uuid"].(string), 1)
			if a.head() == before {
				t.Fatal("the cluster create made no commit")
			}
		})
	}
	// The check does run with that cloud when the default is 0: the site
	// default above is what lets it through.
	a := newTestAPI(t, func(c *Config) { c.Cloud = rootVolumeCloud() })
	a.expectNoCommit(func() {
		expectRootVolumeError(t, a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{"coe": "kubernetes",
			"image_id": "ubuntu-2204-kube", "flavor_id": "z1.zero", "labels": map[string]string{"kube_tag": "v1.33.4"}}), "z1.zero")
	})
}
