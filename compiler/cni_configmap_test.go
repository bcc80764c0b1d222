package compiler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/yaml"
)

// The <uuid> ClusterResourceSet delivers the CNI from the ConfigMap of its
// name: a Cilium cluster's holds the rendered chart under cilium.yaml,
// with its labels (pool, tag, Hubble UI); other network drivers get none
// from this code (Calico's manifests come with their own change).
func TestCNIConfigMapOnlyForCilium(t *testing.T) {
	for _, c := range []struct {
		driver string
		labels map[string]string
		want   []string // in cilium.yaml; nil: no ConfigMap
	}{
		{"cilium", nil, []string{
			"cluster-pool-ipv4-cidr: 10.100.0.0/16", "image: quay.io/cilium/cilium:v1.15.3", "image: quay.io/cilium/operator-generic:v1.15.3",
		}},
		{"cilium", map[string]string{
			"cilium_ipv4pool": "10.210.0.0/16", "cilium_tag": "v1.15.19", "cilium_hubble_ui_enabled": "true",
			"container_infra_prefix": "registry.example.com/m", "dns_cluster_domain": "corp.example",
		}, []string{
			"cluster-pool-ipv4-cidr: 10.210.0.0/16", "image: registry.example.com/m/cilium-cilium:v1.15.19",
			"image: registry.example.com/m/cilium-hubble-relay:v1.15.19", "name: hubble-ui",
			"hubble-peer.kube-system.svc.corp.example",
		}},
		{"calico", nil, nil},
		{"", nil, nil}, // calico, Magnum's default
	} {
		in := secretsInput(t)
		in.Secrets = nil
		in.Template.NetworkDriver = &c.driver
		in.Cluster.Labels["kube_tag"] = "v1.33.4"
		for k, v := range c.labels {
			in.Cluster.Labels[k] = v
		}
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string][]byte{}
		for _, d := range docs {
			byPath[d.Path] = d.Data
		}
		var crs addonsv1.ClusterResourceSet
		if err := yaml.Unmarshal(byPath["clusterresourceset-addons.yaml"], &crs); err != nil {
			t.Fatal(err)
		}
		ref := addonsv1.ResourceRef{Name: in.Cluster.UUID, Kind: "ConfigMap"}
		if len(crs.Spec.Resources) != 1 || crs.Spec.Resources[0] != ref {
			t.Errorf("%q: <uuid> set resources %v, want %v", c.driver, crs.Spec.Resources, ref)
		}
		data, ok := byPath["configmap-addons.yaml"]
		if c.want == nil {
			if ok {
				t.Errorf("%q: a CNI ConfigMap is rendered", c.driver)
			}
			continue
		}
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(data, &cm); err != nil {
			t.Fatal(err)
		}
		if cm.Name != in.Cluster.UUID || cm.Namespace != "magnum-system" || len(cm.Data) != 1 {
			t.Errorf("%q: ConfigMap %s/%s with keys %d", c.driver, cm.Namespace, cm.Name, len(cm.Data))
		}
		for _, s := range c.want {
			if !strings.Contains(cm.Data["cilium.yaml"], s) {
				t.Errorf("%q %v: cilium.yaml lacks %q", c.driver, c.labels, s)
			}
		}
	}
}
