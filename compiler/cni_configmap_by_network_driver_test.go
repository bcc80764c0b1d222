package compiler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/yaml"
)

// The <uuid> ClusterResourceSet delivers the CNI from the ConfigMap of its
// name, which holds the network driver's addon, and only it, under its key:
// a Cilium cluster's the rendered chart under cilium.yaml, with its labels
// (pool, tag, Hubble UI), a Calico cluster's (Magnum's default driver)
// Calico's manifest under calico.yaml.
func TestCNIConfigMapFollowsNetworkDriver(t *testing.T) {
	for _, c := range []struct {
		driver string
		labels map[string]string
		want   []string // in <key>.yaml
		key    string
	}{
		{"cilium", nil, []string{
			"cluster-pool-ipv4-cidr: 10.100.0.0/16", "image: quay.io/cilium/cilium:v1.15.3", "image: quay.io/cilium/operator-generic:v1.15.3",
		}, "cilium"},
		{"cilium", map[string]string{
			"cilium_ipv4pool": "10.210.0.0/16", "cilium_tag": "v1.15.19", "cilium_hubble_ui_enabled": "true",
			"container_infra_prefix": "registry.example.com/m", "dns_cluster_domain": "corp.example",
		}, []string{
			"cluster-pool-ipv4-cidr: 10.210.0.0/16", "image: registry.example.com/m/cilium-cilium:v1.15.19",
			"image: registry.example.com/m/cilium-hubble-relay:v1.15.19", "name: hubble-ui",
			"hubble-peer.kube-system.svc.corp.example",
		}, "cilium"},
		{"calico", nil, []string{"image: quay.io/calico/node:v3.30.2", "value: 10.100.0.0/16"}, "calico"},
		{"", map[string]string{"calico_tag": "v3.28.5"}, []string{"image: quay.io/calico/node:v3.28.5"}, "calico"},
	} {
		in := secretsInput(t)
		in.Secrets = nil
		in.Template.NetworkDriver = &c.driver
		in.Cluster.Labels["kube_tag"] = "v1.33.4"
		// The CNI alone (k8s-keystone-auth shares the set: keystone_auth_enabled_test.go).
		in.Cluster.Labels["keystone_auth_enabled"] = "false"
		for k, v := range c.labels {
			in.Cluster.Labels[k] = v
		}
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		byPath := map[string][]byte{}
		for _, d := range docs {
			byPath[d.Path] = d.Bytes()
		}
		var crs addonsv1.ClusterResourceSet
		if err := yaml.Unmarshal(byPath["clusterresourceset-addons.yaml"], &crs); err != nil {
			t.Fatal(err)
		}
		ref := addonsv1.ResourceRef{Name: in.Cluster.UUID, Kind: "ConfigMap"}
		if len(crs.Spec.Resources) != 1 || crs.Spec.Resources[0] != ref {
			t.Errorf("%q: <uuid> set resources %v, want %v", c.driver, crs.Spec.Resources, ref)
		}
		var cm corev1.ConfigMap
		if err := yaml.Unmarshal(byPath["configmap-addons.yaml"], &cm); err != nil {
			t.Fatal(err)
		}
		if cm.Name != in.Cluster.UUID || cm.Namespace != "magnum-system" || len(cm.Data) != 1 {
			t.Errorf("%q: ConfigMap %s/%s with keys %d", c.driver, cm.Namespace, cm.Name, len(cm.Data))
		}
		for _, s := range c.want {
			if !strings.Contains(cm.Data[c.key+".yaml"], s) {
				t.Errorf("%q %v: %s.yaml lacks %q", c.driver, c.labels, c.key, s)
			}
		}
	}
}
