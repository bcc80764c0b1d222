package keystoneauth

import "testing"

// The image is k8s-keystone-auth at k8s_keystone_auth_tag, from
// registry.k8s.io, or under container_infra_prefix as the reference
// mirrors provider-os images (<prefix>/k8s-keystone-auth).
func TestImageFollowsLabels(t *testing.T) {
	for _, c := range []struct {
		tag, prefix, want string
	}{
		{"v1.29.0", "", "registry.k8s.io/provider-os/k8s-keystone-auth:v1.29.0"},
		{"v1.35.0", "", "registry.k8s.io/provider-os/k8s-keystone-auth:v1.35.0"},
		{"v1.29.0", "registry.example.com/mirror", "registry.example.com/mirror/k8s-keystone-auth:v1.29.0"},
		{"v1.31.2", "registry.example.com/mirror/", "registry.example.com/mirror/k8s-keystone-auth:v1.31.2"},
	} {
		p := defaults
		p.Tag, p.Prefix = c.tag, c.prefix
		cs := daemonSetOf(t, p).Spec.Template.Spec.Containers
		if len(cs) != 1 || cs[0].Image != c.want {
			t.Errorf("tag %q prefix %q: containers %v, want one with image %s", c.tag, c.prefix, cs, c.want)
		}
	}
	p := defaults
	p.Tag = ""
	if _, err := Manifests(p); err == nil {
		t.Error("rendered without a tag")
	}
}
