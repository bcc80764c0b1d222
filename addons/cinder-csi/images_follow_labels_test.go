package cindercsi

import "testing"

// The plugin's tag (cinder_csi_plugin_tag) and each sidecar's tag reach
// their containers; with container_infra_prefix every image is pulled from
// the mirror as <prefix>/<name>, the liveness probe as csi-livenessprobe.
func TestImagesFollowLabels(t *testing.T) {
	for _, c := range []struct {
		prefix string
		want   map[string]string
	}{
		{"", map[string]string{
			"Deployment/csi-attacher":         "registry.k8s.io/sig-storage/csi-attacher:v4.7.0",
			"Deployment/csi-provisioner":      "registry.k8s.io/sig-storage/csi-provisioner:v5.1.0",
			"Deployment/csi-snapshotter":      "registry.k8s.io/sig-storage/csi-snapshotter:v8.1.0",
			"Deployment/csi-resizer":          "registry.k8s.io/sig-storage/csi-resizer:v1.12.0",
			"Deployment/liveness-probe":       "registry.k8s.io/sig-storage/livenessprobe:v2.14.0",
			"Deployment/cinder-csi-plugin":    "registry.k8s.io/provider-os/cinder-csi-plugin:v1.31.9",
			"DaemonSet/node-driver-registrar": "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.12.0",
			"DaemonSet/liveness-probe":        "registry.k8s.io/sig-storage/livenessprobe:v2.14.0",
			"DaemonSet/cinder-csi-plugin":     "registry.k8s.io/provider-os/cinder-csi-plugin:v1.31.9",
		}},
		{"registry.example.com/mirror/", map[string]string{
			"Deployment/csi-attacher":         "registry.example.com/mirror/csi-attacher:v4.7.0",
			"Deployment/csi-provisioner":      "registry.example.com/mirror/csi-provisioner:v5.1.0",
			"Deployment/csi-snapshotter":      "registry.example.com/mirror/csi-snapshotter:v8.1.0",
			"Deployment/csi-resizer":          "registry.example.com/mirror/csi-resizer:v1.12.0",
			"Deployment/liveness-probe":       "registry.example.com/mirror/csi-livenessprobe:v2.14.0",
			"Deployment/cinder-csi-plugin":    "registry.example.com/mirror/cinder-csi-plugin:v1.31.9",
			"DaemonSet/node-driver-registrar": "registry.example.com/mirror/csi-node-driver-registrar:v2.12.0",
			"DaemonSet/liveness-probe":        "registry.example.com/mirror/csi-livenessprobe:v2.14.0",
			"DaemonSet/cinder-csi-plugin":     "registry.example.com/mirror/cinder-csi-plugin:v1.31.9",
		}},
	} {
		got := images(t, render(t, Params{ClusterUUID: "u", Prefix: c.prefix, Tag: "v1.31.9", Sidecars: sidecars}))
		if len(got) != len(c.want) {
			t.Errorf("prefix %q: images %v, want %v", c.prefix, got, c.want)
		}
		for k, v := range c.want {
			if got[k] != v {
				t.Errorf("prefix %q: %s is %q, want %q", c.prefix, k, got[k], v)
			}
		}
	}
}
