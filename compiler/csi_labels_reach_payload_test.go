package compiler

import (
	"maps"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// Each CSI label reaches the driver it configures in the cloud-provider
// ConfigMap: the plugin tags, every sidecar tag, the registry mirror,
// boot_volume_type as the default StorageClass's volume type, and the
// Manila share network as its StorageClass's.
func TestCSILabelsReachPayload(t *testing.T) {
	labels := map[string]string{
		"container_infra_prefix":        "registry.example.com/mirror",
		"cinder_csi_plugin_tag":         "v1.33.1",
		"manila_csi_plugin_tag":         "v1.33.2",
		"csi_attacher_tag":              "v4.8.0",
		"csi_provisioner_tag":           "v5.2.0",
		"csi_snapshotter_tag":           "v8.2.0",
		"csi_resizer_tag":               "v1.13.0",
		"csi_liveness_probe_tag":        "v2.15.0",
		"csi_node_driver_registrar_tag": "v2.13.0",
		"boot_volume_type":              "ssd",
		"manila_csi_share_network_id":   "3fa85f64-5717-4562-b3fc-2c963f66afa6",
	}
	in := secretsInput(t)
	maps.Copy(in.Cluster.Labels, labels)
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	var cm corev1.ConfigMap
	for _, d := range docs {
		if d.Path == "configmap-cloud-provider.yaml" {
			if err := yaml.Unmarshal(d.Bytes(), &cm); err != nil {
				t.Fatal(err)
			}
		}
	}
	for _, c := range []struct{ key, want string }{
		{"cinder-csi.yaml", "image: registry.example.com/mirror/cinder-csi-plugin:v1.33.1"},
		{"cinder-csi.yaml", "image: registry.example.com/mirror/csi-attacher:v4.8.0"},
		{"cinder-csi.yaml", "image: registry.example.com/mirror/csi-provisioner:v5.2.0"},
		{"cinder-csi.yaml", "image: registry.example.com/mirror/csi-snapshotter:v8.2.0"},
		{"cinder-csi.yaml", "image: registry.example.com/mirror/csi-resizer:v1.13.0"},
		{"cinder-csi.yaml", "image: registry.example.com/mirror/csi-livenessprobe:v2.15.0"},
		{"cinder-csi.yaml", "image: registry.example.com/mirror/csi-node-driver-registrar:v2.13.0"},
		{"cinder-csi.yaml", "name: block-ssd\n"},
		{"cinder-csi.yaml", "type: ssd\n"},
		{"manila-csi.yaml", "image: registry.example.com/mirror/manila-csi-plugin:v1.33.2"},
		{"manila-csi.yaml", "image: registry.example.com/mirror/csi-provisioner:v5.2.0"},
		{"manila-csi.yaml", "image: registry.example.com/mirror/csi-snapshotter:v8.2.0"},
		{"manila-csi.yaml", "image: registry.example.com/mirror/csi-resizer:v1.13.0"},
		{"manila-csi.yaml", "image: registry.example.com/mirror/csi-node-driver-registrar:v2.13.0"},
		{"manila-csi.yaml", "shareNetworkID: 3fa85f64-5717-4562-b3fc-2c963f66afa6"},
	} {
		if !strings.Contains(cm.Data[c.key], c.want) {
			t.Errorf("%s lacks %q", c.key, c.want)
		}
	}
	if n := strings.Count(cm.Data["cinder-csi.yaml"], "image: registry.k8s.io/"); n != 0 {
		t.Errorf("%d Cinder CSI images not mirrored", n)
	}
	if n := strings.Count(cm.Data["manila-csi.yaml"], "image: registry.k8s.io/"); n != 0 {
		t.Errorf("%d Manila CSI images not mirrored", n)
	}
}
