package manilacsi

import "testing"

// The plugin's tag (manila_csi_plugin_tag) and the sidecars' tags reach
// their containers (the chart has no attacher or liveness probe); with
// container_infra_prefix every image is pulled from the mirror as
// <prefix>/<name>.
func TestImagesFollowLabels(t *testing.T) {
	for _, c := range []struct {
		prefix string
		want   map[string]string
	}{
		{"", map[string]string{
			"StatefulSet/nfs-provisioner": "registry.k8s.io/sig-storage/csi-provisioner:v5.1.0",
			"StatefulSet/nfs-snapshotter": "registry.k8s.io/sig-storage/csi-snapshotter:v8.1.0",
			"StatefulSet/nfs-resizer":     "registry.k8s.io/sig-storage/csi-resizer:v1.12.0",
			"StatefulSet/nfs-nodeplugin":  "registry.k8s.io/provider-os/manila-csi-plugin:v1.31.9",
			"DaemonSet/nfs-registrar":     "registry.k8s.io/sig-storage/csi-node-driver-registrar:v2.12.0",
			"DaemonSet/nfs-nodeplugin":    "registry.k8s.io/provider-os/manila-csi-plugin:v1.31.9",
		}},
		{"registry.example.com/mirror", map[string]string{
			"StatefulSet/nfs-provisioner": "registry.example.com/mirror/csi-provisioner:v5.1.0",
			"StatefulSet/nfs-snapshotter": "registry.example.com/mirror/csi-snapshotter:v8.1.0",
			"StatefulSet/nfs-resizer":     "registry.example.com/mirror/csi-resizer:v1.12.0",
			"StatefulSet/nfs-nodeplugin":  "registry.example.com/mirror/manila-csi-plugin:v1.31.9",
			"DaemonSet/nfs-registrar":     "registry.example.com/mirror/csi-node-driver-registrar:v2.12.0",
			"DaemonSet/nfs-nodeplugin":    "registry.example.com/mirror/manila-csi-plugin:v1.31.9",
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
