package occm

import "testing"

// Without cloud_provider_tag, OCCM's tag is the reference's for kube_tag's
// minor, v1.35.0 for minors it does not list.
func TestTagFollowsKubeMinor(t *testing.T) {
	for _, c := range []struct{ label, kube, want string }{
		{"", "v1.33.4", "v1.33.1"},
		{"", "1.30.2", "v1.30.3"},
		{"", "v1.36.0", "v1.35.0"},
		{"", "nonsense", "v1.35.0"},
		{"v1.31.0", "v1.33.4", "v1.31.0"},
	} {
		if got := Tag(c.label, c.kube); got != c.want {
			t.Errorf("Tag(%q, %q) = %s, want %s", c.label, c.kube, got, c.want)
		}
	}
}
