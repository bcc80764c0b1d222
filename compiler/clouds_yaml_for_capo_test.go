package compiler

import (
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"
)

// CAPO's clouds.yaml says which endpoints to use the way CAPO v0.14 reads
// it (endpoint_type; interface is what the openstack CLI reads), in its
// region, and the cloud's private CA is where CAPO looks for it (the
// Secret's cacert key).
func TestCloudsYAMLForCAPO(t *testing.T) {
	for _, c := range []struct {
		iface, want, ca string
	}{
		{"", "public", ""},
		{"internalURL", "internal", ""},
		{"admin", "admin", "-----BEGIN CERTIFICATE-----\nMIIB\n-----END CERTIFICATE-----\n"},
	} {
		in := secretsInput(t)
		in.Secrets.Cloud.Interface = c.iface
		in.Secrets.Cloud.CACert = c.ca
		docs, err := Compile(in)
		if err != nil {
			t.Fatal(err)
		}
		var cc corev1.Secret
		for _, d := range docs {
			if d.Path == "secret-cloud-config.yaml" {
				if err := yaml.Unmarshal(d.Bytes(), &cc); err != nil {
					t.Fatal(err)
				}
			}
		}
		var clouds struct {
			Clouds map[string]map[string]any `json:"clouds"`
		}
		if err := yaml.Unmarshal(cc.Data["clouds.yaml"], &clouds); err != nil {
			t.Fatal(err)
		}
		def := clouds.Clouds["default"]
		if def["endpoint_type"] != c.want || def["interface"] != c.want || def["region_name"] != "RegionOne" {
			t.Errorf("interface %q: clouds.yaml %s", c.iface, cc.Data["clouds.yaml"])
		}
		if string(cc.Data["cacert"]) != c.ca {
			t.Errorf("interface %q: cacert %q, want %q", c.iface, cc.Data["cacert"], c.ca)
		}
	}
}
