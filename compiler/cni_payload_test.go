package compiler

import (
	"slices"
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons/calico"
	"github.com/openkeel/keel/schemas"
)

// A Calico cluster's <uuid> ClusterResourceSet delivers Calico: it refers
// to the ConfigMap <uuid>, which carries the release calico_tag names with
// the cluster's pod network.
func TestCalicoClusterGetsCalico(t *testing.T) {
	in := secretsInput(t)
	in.Secrets = nil
	in.Cluster.Labels = map[string]string{"kube_tag": "v1.33.4", "calico_tag": "v3.28.5", "calico_ipv4pool": "10.200.0.0/16"}
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	var crs addonsv1.ClusterResourceSet
	var cm corev1.ConfigMap
	for _, d := range docs {
		switch d.Path {
		case "clusterresourceset-addons.yaml":
			err = yaml.Unmarshal(d.Data, &crs)
		case "configmap-addons.yaml":
			err = yaml.Unmarshal(d.Data, &cm)
		}
		if err != nil {
			t.Fatal(err)
		}
	}
	want := []addonsv1.ResourceRef{{Name: in.Cluster.UUID, Kind: "ConfigMap"}}
	if !slices.Equal(crs.Spec.Resources, want) || cm.Name != in.Cluster.UUID {
		t.Fatalf("set %s refers to %v; ConfigMap %q", crs.Name, crs.Spec.Resources, cm.Name)
	}
	payload := cm.Data["calico.yaml"]
	for _, s := range []string{"name: calico-node\n", "quay.io/calico/node:v3.28.5", "value: 10.200.0.0/16"} {
		if !strings.Contains(payload, s) {
			t.Errorf("calico.yaml lacks %q", s)
		}
	}
}

// The label catalogue allows exactly the Calico releases keel carries: a
// template may name no release the compiler cannot render.
func TestCalicoTagAllowsCarriedReleases(t *testing.T) {
	spec, ok := schemas.Default().Lookup(schemas.LabelCalicoTag)
	if !ok {
		t.Fatal("no calico_tag label")
	}
	if !slices.Equal(spec.Allowed, calico.Releases) {
		t.Fatalf("calico_tag allows %v; keel carries %v", spec.Allowed, calico.Releases)
	}
	if !slices.Contains(calico.Releases, spec.Default) {
		t.Fatalf("calico_tag defaults to %s, which keel does not carry", spec.Default)
	}
}
