package compiler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// The OCCM image follows kube_tag's minor (the reference's matrix) unless
// cloud_provider_tag says otherwise, and honours container_infra_prefix.
func TestCloudProviderTagAndPrefix(t *testing.T) {
	image := func(labels map[string]string) string {
		t.Helper()
		in := secretsInput(t)
		in.Secrets = nil
		in.Cluster.Labels = labels
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		for _, d := range docs {
			if d.Path != "configmap-cloud-provider.yaml" {
				continue
			}
			var cm corev1.ConfigMap
			if err := yaml.Unmarshal(d.Bytes(), &cm); err != nil {
				t.Fatal(err)
			}
			for _, line := range strings.Split(cm.Data["openstack-cloud-controller-manager.yaml"], "\n") {
				if s := strings.TrimSpace(line); strings.HasPrefix(s, "image: ") {
					return strings.TrimPrefix(s, "image: ")
				}
			}
		}
		t.Fatal("no image in the OCCM payload of the cloud-provider ConfigMap")
		return ""
	}
	for _, c := range []struct {
		labels map[string]string
		want   string
	}{
		{map[string]string{"kube_tag": "v1.33.4"}, "registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.33.1"},
		{map[string]string{"kube_tag": "v1.36.0"}, "registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.35.0"},
		{map[string]string{"kube_tag": "v1.33.4", "cloud_provider_tag": "v1.34.1"}, "registry.k8s.io/provider-os/openstack-cloud-controller-manager:v1.34.1"},
		{map[string]string{"kube_tag": "v1.33.4", "container_infra_prefix": "registry.example.com/mirror"}, "registry.example.com/mirror/openstack-cloud-controller-manager:v1.33.1"},
	} {
		if got := image(c.labels); got != c.want {
			t.Errorf("%v: image %s, want %s", c.labels, got, c.want)
		}
	}
}
