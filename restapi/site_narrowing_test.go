package restapi

import (
	"net/http"
	"testing"
)

// The API validates with the site.cue of the repository: a label value the
// site narrows away is a 400 naming the label, before anything is committed,
// and a cluster that does not set the label is rendered with the site's
// defaults.
func TestSiteNarrowingIsEnforcedAndRendered(t *testing.T) {
	a := newTestAPI(t)
	a.commitSite(`package schemas

site: defaults: boot_volume_size: "50"
site: allowed: octavia_provider: ["ovn"]
site: defaults: octavia_provider: "ovn"
`)
	tmpl := a.template(member, "k8s", nil)

	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "POST", "/v1/clustertemplates", map[string]any{
			"coe": "kubernetes", "image_id": "img", "labels": map[string]string{"kube_tag": "v1.33.4", "octavia_provider": "amphora"},
		}), http.StatusBadRequest, "octavia_provider")
	})
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "POST", "/v1/clusters", map[string]any{
			"cluster_template_id": tmpl.UUID, "merge_labels": true, "labels": map[string]string{"octavia_provider": "amphora"},
		}), http.StatusBadRequest, "octavia_provider")
	})

	id := a.cluster(member, "prod", tmpl.UUID, 1)
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	vars, _ := renderedTopology(t, sn, a.loadState(id).Dir)
	if bv, _ := vars["bootVolume"].(map[string]any); bv["size"] != float64(50) {
		t.Errorf("bootVolume = %v, want the site default size 50", vars["bootVolume"])
	}
	if lb, _ := vars["apiServerLoadBalancer"].(map[string]any); lb["provider"] != "ovn" {
		t.Errorf("apiServerLoadBalancer = %v, want the site default provider ovn", vars["apiServerLoadBalancer"])
	}
}
