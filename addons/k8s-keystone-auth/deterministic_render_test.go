package keystoneauth

import (
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/addons"
)

// The same parameters and cloud give the same bytes, every time: the
// manifests and the Secret.
func TestDeterministicRender(t *testing.T) {
	p := defaults
	p.Prefix = "registry.example.com/mirror"
	cloud := Cloud{AuthURL: "https://keystone.example.org", CACert: "-----BEGIN CERTIFICATE-----\nx\n-----END CERTIFICATE-----\n"}
	render := func() (string, string) {
		payload, err := Payload(p)
		if err != nil {
			t.Fatal(err)
		}
		s, err := Secret(cloud)
		if err != nil {
			t.Fatal(err)
		}
		secret, err := addons.Marshal([]*unstructured.Unstructured{s})
		if err != nil {
			t.Fatal(err)
		}
		return payload, string(secret)
	}
	payload, secret := render()
	for range 20 {
		if p2, s2 := render(); p2 != payload || s2 != secret {
			t.Fatal("output differs between renders")
		}
	}
}
