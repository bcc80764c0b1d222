package cilium

import (
	"strings"
	"testing"
)

// Under container_infra_prefix P, quay.io/cilium/<name> is pulled as
// P/cilium-<name>, by tag (the mirror's digests are its own).
func TestPrefixMirrorsEveryImage(t *testing.T) {
	p := params()
	p.Prefix, p.HubbleUI = "registry.example.com:5000/mirror/", true
	want := map[string]string{
		"DaemonSet/cilium/cilium-agent":              "registry.example.com:5000/mirror/cilium-cilium:v1.15.3",
		"Deployment/cilium-operator/cilium-operator": "registry.example.com:5000/mirror/cilium-operator-generic:v1.15.3",
		"Deployment/hubble-relay/hubble-relay":       "registry.example.com:5000/mirror/cilium-hubble-relay:v1.15.3",
		"Deployment/hubble-ui/frontend":              "registry.example.com:5000/mirror/cilium-hubble-ui:v0.13.2",
		"Deployment/hubble-ui/backend":               "registry.example.com:5000/mirror/cilium-hubble-ui-backend:v0.13.2",
	}
	for where, image := range containerImages(t, render(t, p)) {
		if w, ok := want[where]; ok && image != w {
			t.Errorf("%s is %s, want %s", where, image, w)
		}
		if !strings.HasPrefix(image, "registry.example.com:5000/mirror/cilium-") || strings.Contains(image, "@") {
			t.Errorf("%s is %s: not mirrored by tag", where, image)
		}
	}
}

func TestMirrorImage(t *testing.T) {
	for _, c := range []struct{ prefix, image, want string }{
		{"", "quay.io/cilium/operator", "quay.io/cilium/operator"},
		{"r.example.com/m", "quay.io/cilium/operator", "r.example.com/m/cilium-operator"},
		{"r.example.com/m/", "quay.io/cilium/cilium", "r.example.com/m/cilium-cilium"},
		{"localhost:5000", "quay.io/cilium/hubble-ui", "localhost:5000/cilium-hubble-ui"},
	} {
		if got := MirrorImage(c.prefix, c.image); got != c.want {
			t.Errorf("MirrorImage(%q, %q) = %s, want %s", c.prefix, c.image, got, c.want)
		}
	}
}
