package manilacsi

import (
	"reflect"
	"testing"

	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/runtime"
)

// kube-system/csi-manila-secrets carries the cluster's credential under
// the keys the driver reads (the reference's, plus the endpoint type), a
// private CA inline, and no region key without a region.
func TestSecretKeys(t *testing.T) {
	for _, c := range []struct {
		cloud Cloud
		want  map[string]string
	}{
		{Cloud{AuthURL: "https://keystone.example.org/v3", Region: "RegionOne", Interface: "internalURL",
			ApplicationCredentialID: "ac-1", ApplicationCredentialSecret: "s3cr3t", CACert: "PEM"},
			map[string]string{
				"os-authURL": "https://keystone.example.org/v3", "os-region": "RegionOne", "os-endpointType": "internal",
				"os-applicationCredentialID": "ac-1", "os-applicationCredentialSecret": "s3cr3t",
				"os-TLSInsecure": "false", "os-certAuthority": "PEM",
			}},
		{Cloud{AuthURL: "https://keystone.example.org/v3", ApplicationCredentialID: "ac-1", ApplicationCredentialSecret: "s3cr3t", Insecure: true},
			map[string]string{
				"os-authURL": "https://keystone.example.org/v3", "os-endpointType": "public",
				"os-applicationCredentialID": "ac-1", "os-applicationCredentialSecret": "s3cr3t",
				"os-TLSInsecure": "true",
			}},
	} {
		obj, err := Secret(c.cloud)
		if err != nil {
			t.Fatal(err)
		}
		var s corev1.Secret
		if err := runtime.DefaultUnstructuredConverter.FromUnstructured(obj.Object, &s); err != nil {
			t.Fatal(err)
		}
		got := map[string]string{}
		for k, v := range s.Data {
			got[k] = string(v)
		}
		if s.Namespace != "kube-system" || s.Name != "csi-manila-secrets" || !reflect.DeepEqual(got, c.want) {
			t.Errorf("Secret %s/%s %v, want %v", s.Namespace, s.Name, got, c.want)
		}
	}
}
