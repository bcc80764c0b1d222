package keystoneauth

import (
	"path"
	"testing"

	corev1 "k8s.io/api/core/v1"
)

// The Keystone URL and a private CA reach k8s-keystone-auth from its
// Secret, not from the manifests: OS_AUTH_URL is the cloud's identity
// endpoint with /v3, KEYSTONE_CA_FILE is set (to the mounted CA) only
// when the cloud has a private CA, and without a Keystone URL (keel
// without Keystone) the key is absent rather than invented.
func TestReadsCloudFromSecret(t *testing.T) {
	ds := daemonSetOf(t, defaults)
	c := ds.Spec.Template.Spec.Containers[0]
	if flag(c.Args, "--keystone-url") != "" || flag(c.Args, "--keystone-ca-file") != "" {
		t.Errorf("args %v name the cloud: the manifests must not depend on it", c.Args)
	}
	env := map[string]*corev1.SecretKeySelector{}
	for _, e := range c.Env {
		if e.ValueFrom == nil || e.ValueFrom.SecretKeyRef == nil || e.ValueFrom.SecretKeyRef.Name != SecretName {
			t.Fatalf("env %s does not come from Secret %s", e.Name, SecretName)
		}
		env[e.Name] = e.ValueFrom.SecretKeyRef
	}
	if r := env["OS_AUTH_URL"]; r == nil || r.Key != SecretKeystoneURL || (r.Optional != nil && *r.Optional) {
		t.Errorf("OS_AUTH_URL from %+v, want required key %s", r, SecretKeystoneURL)
	}
	if r := env["KEYSTONE_CA_FILE"]; r == nil || r.Key != SecretCAFile || r.Optional == nil || !*r.Optional {
		t.Errorf("KEYSTONE_CA_FILE from %+v, want optional key %s", r, SecretCAFile)
	}
	var mountDir string
	for _, v := range ds.Spec.Template.Spec.Volumes {
		if v.Secret != nil && v.Secret.SecretName == SecretName {
			for _, m := range c.VolumeMounts {
				if m.Name == v.Name {
					mountDir = m.MountPath
				}
			}
		}
	}
	if mountDir == "" {
		t.Fatalf("Secret %s not mounted", SecretName)
	}

	const pem = "-----BEGIN CERTIFICATE-----\nMIIBkeel\n-----END CERTIFICATE-----\n"
	for _, tc := range []struct {
		cloud Cloud
		want  map[string]string
	}{
		{Cloud{AuthURL: "https://keystone.example.org:5000"}, map[string]string{SecretKeystoneURL: "https://keystone.example.org:5000/v3"}},
		{Cloud{AuthURL: "https://keystone.example.org/identity/v3/"}, map[string]string{SecretKeystoneURL: "https://keystone.example.org/identity/v3"}},
		{Cloud{AuthURL: "https://keystone.example.org/v3", CACert: pem}, map[string]string{
			SecretKeystoneURL: "https://keystone.example.org/v3", SecretCA: pem, SecretCAFile: path.Join(mountDir, SecretCA),
		}},
		{Cloud{}, map[string]string{}},
	} {
		o, err := Secret(tc.cloud)
		if err != nil {
			t.Fatal(err)
		}
		s := typed[corev1.Secret](t, o)
		if s.Name != SecretName || s.Namespace != Namespace {
			t.Errorf("Secret %s/%s", s.Namespace, s.Name)
		}
		got := map[string]string{}
		for k, v := range s.Data {
			got[k] = string(v)
		}
		if len(got) != len(tc.want) {
			t.Errorf("%+v: keys %v, want %v", tc.cloud, got, tc.want)
		}
		for k, v := range tc.want {
			if got[k] != v {
				t.Errorf("%+v: %s = %q, want %q", tc.cloud, k, got[k], v)
			}
		}
	}
}
