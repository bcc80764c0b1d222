package apiservertest

import (
	"testing"
	"time"

	corev1 "k8s.io/api/core/v1"
	addonsv1 "sigs.k8s.io/cluster-api/api/addons/v1beta2"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/addons"
	"github.com/openkeel/keel/compiler"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/pki"
)

// The objects inside the sets' payload Secrets (kube-system/cloud-config,
// csi-manila-secrets, k8s-keystone-auth-cloud: encrypted in Git, so never
// in a plan) are accepted by a Kubernetes API server too, with and without
// a private CA.
func TestAddonSecretPayloadsAccepted(t *testing.T) {
	keys, err := pki.Generate("prod-a", time.Now())
	if err != nil {
		t.Fatal(err)
	}
	for name, in := range inputs(t) {
		for _, ca := range []string{"", "-----BEGIN CERTIFICATE-----\nMIIBca\n-----END CERTIFICATE-----\n"} {
			in.Secrets = &compiler.SecretInput{PKI: keys, Cloud: intent.CloudConfig{
				AuthURL: "https://keystone.example.org:5000", RegionName: "RegionOne", CACert: ca,
			}}
			docs, err := compiler.Compile(in)
			if err != nil {
				t.Fatal(err)
			}
			sets := 0
			for _, d := range docs {
				var s corev1.Secret
				if err := yaml.Unmarshal(d.Bytes(), &s); err != nil || s.Kind != "Secret" || s.Type != addonsv1.ClusterResourceSetSecretType {
					continue
				}
				sets++
				for key, payload := range s.Data {
					objs, err := addons.Decode(string(payload))
					if err != nil || len(objs) == 0 {
						t.Fatalf("%s, Secret %s, %s: %d objects, %v", name, s.Name, key, len(objs), err)
					}
					for _, o := range objs {
						dryRunObject(t, name+" "+s.Name+" "+key, o)
					}
				}
			}
			if sets == 0 {
				t.Errorf("%s: no payload Secret", name)
			}
		}
	}
}
