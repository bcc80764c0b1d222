package restapi

import (
	"net/http"
	"testing"
)

// A template or cluster created with a bad label gets a Magnum-format 400
// that names the label and what is allowed (or the label it was probably
// meant to be), and nothing is committed.
func TestCreateWithBadLabelIsRefusedBeforeCommit(t *testing.T) {
	a := newTestAPI(t)
	tmpl := a.template(member, "good", map[string]string{"kube_tag": "v1.33.4"})
	for _, tc := range []struct {
		name, path string
		body       map[string]any
		want       string
	}{
		{"template typo", "/v1/clustertemplates", map[string]any{"coe": "kubernetes", "image_id": "img",
			"labels": map[string]string{"kube_tag": "v1.33.4", "boot_volume_szie": "50"}}, "boot_volume_size"},
		{"template bad value", "/v1/clustertemplates", map[string]any{"coe": "kubernetes", "image_id": "img",
			"labels": map[string]string{"kube_tag": "v1.33.4", "auto_healing_enabled": "maybe"}}, "auto_healing_enabled"},
		{"cluster bad version", "/v1/clusters", map[string]any{"cluster_template_id": tmpl.UUID,
			"labels": map[string]string{"kube_tag": "1.33"}}, "kube_tag"},
		{"cluster bad cidr", "/v1/clusters", map[string]any{"cluster_template_id": tmpl.UUID, "merge_labels": true,
			"labels": map[string]string{"service_cluster_ip_range": "10.254.0.0/33"}}, "service_cluster_ip_range"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(member, "", "POST", tc.path, tc.body), http.StatusBadRequest, tc.want)
			})
		})
	}
}
