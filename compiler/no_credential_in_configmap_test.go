package compiler

import (
	"strings"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/yaml"

	"github.com/openkeel/keel/intent"
)

// The cluster's credential, which OCCM and both CSI drivers use, is only
// in Secrets (encrypted in Git): in the cloud-provider Secret as
// kube-system/cloud-config and kube-system/csi-manila-secrets, never in a
// ConfigMap or any other plain document. So are the cloud's private CA and
// the Keystone URL k8s-keystone-auth is given (the <uuid> Secret).
func TestNoCredentialInConfigMap(t *testing.T) {
	in := secretsInput(t)
	in.Secrets.Credential = &intent.ClusterCredential{ID: "ac-7f3e", Secret: "s3cr3t-9a1b", UserID: "alice-id"}
	in.Secrets.Cloud.CACert = "-----BEGIN CERTIFICATE-----\nMIIBprivateca7c1d\n-----END CERTIFICATE-----\n"
	in.Secrets.Cloud.AuthURL = "https://identity.private.example.org:5000"
	in.Cluster.Labels["manila_csi_share_network_id"] = "3fa85f64-5717-4562-b3fc-2c963f66afa6"
	docs, err := Compile(in)
	if err != nil {
		t.Fatal(err)
	}
	for _, d := range docs {
		var meta struct{ Kind string }
		if err := yaml.Unmarshal(d.Bytes(), &meta); err != nil {
			t.Fatalf("%s: %v", d.Path, err)
		}
		if meta.Kind == "Secret" {
			continue
		}
		for _, s := range []string{"ac-7f3e", "s3cr3t-9a1b", "MIIBprivateca7c1d", "identity.private.example.org"} {
			if strings.Contains(string(d.Bytes()), s) {
				t.Errorf("%s (%s) carries the credential %q", d.Path, meta.Kind, s)
			}
		}
	}
	var secret, manila corev1.Secret
	for _, d := range docs {
		if d.Path == "secret-cloud-provider.yaml" {
			if err := yaml.Unmarshal(d.Bytes(), &secret); err != nil {
				t.Fatal(err)
			}
		}
	}
	if err := yaml.Unmarshal(secret.Data["manila-csi-secret.yaml"], &manila); err != nil {
		t.Fatal(err)
	}
	if manila.Name != "csi-manila-secrets" || string(manila.Data["os-applicationCredentialID"]) != "ac-7f3e" ||
		string(manila.Data["os-applicationCredentialSecret"]) != "s3cr3t-9a1b" || string(manila.Data["os-region"]) != "RegionOne" {
		t.Errorf("Manila's Secret %s: %v", manila.Name, manila.Data)
	}
}
