package compiler

import (
	"maps"
	"slices"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// cinder_csi_enabled and manila_csi_enabled (both on by default, as in the
// reference) put each driver's manifests in the cloud-provider ConfigMap
// beside OCCM's, and Manila's credential Secret in the cloud-provider
// Secret beside cloud-config; a disabled driver is left out of both.
func TestCSIAddonsFollowEnabledLabels(t *testing.T) {
	for _, c := range []struct {
		labels     map[string]string
		configMap  []string
		secretKeys []string
	}{
		{nil,
			[]string{"cinder-csi.yaml", "manila-csi.yaml", "openstack-cloud-controller-manager.yaml"},
			[]string{"cloud-config-secret.yaml", "manila-csi-secret.yaml"}},
		{map[string]string{"cinder_csi_enabled": "false"},
			[]string{"manila-csi.yaml", "openstack-cloud-controller-manager.yaml"},
			[]string{"cloud-config-secret.yaml", "manila-csi-secret.yaml"}},
		{map[string]string{"manila_csi_enabled": "false"},
			[]string{"cinder-csi.yaml", "openstack-cloud-controller-manager.yaml"},
			[]string{"cloud-config-secret.yaml"}},
		{map[string]string{"cinder_csi_enabled": "false", "manila_csi_enabled": "false"},
			[]string{"openstack-cloud-controller-manager.yaml"},
			[]string{"cloud-config-secret.yaml"}},
	} {
		in := secretsInput(t)
		maps.Copy(in.Cluster.Labels, c.labels)
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		var cm corev1.ConfigMap
		var secret corev1.Secret
		for _, d := range docs {
			switch d.Path {
			case "configmap-cloud-provider.yaml":
				err = yaml.Unmarshal(d.Bytes(), &cm)
			case "secret-cloud-provider.yaml":
				err = yaml.Unmarshal(d.Bytes(), &secret)
			}
			if err != nil {
				t.Fatal(err)
			}
		}
		if got := slices.Sorted(maps.Keys(cm.Data)); !slices.Equal(got, c.configMap) {
			t.Errorf("%v: ConfigMap keys %v, want %v", c.labels, got, c.configMap)
		}
		if got := slices.Sorted(maps.Keys(secret.Data)); !slices.Equal(got, c.secretKeys) {
			t.Errorf("%v: Secret keys %v, want %v", c.labels, got, c.secretKeys)
		}
	}
}
