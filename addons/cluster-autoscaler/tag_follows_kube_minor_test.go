package clusterautoscaler

import "testing"

// Without autoscaler_tag the image is the reference's autoscaler release
// for kube_tag's minor, v<major>.<minor>.0 past the table; the label wins.
func TestTagFollowsKubeMinor(t *testing.T) {
	for _, c := range []struct{ label, kube, want string }{
		{"", "v1.22.17", "v1.22.3"},
		{"", "v1.29.2", "v1.29.5"},
		{"", "v1.33.1", "v1.33.5"},
		{"", "1.35.0", "v1.35.1"},
		{"", "v1.36.2", "v1.36.0"},
		{"", "v1.37.1", "v1.37.0"},
		{"v1.32.1", "v1.33.1", "v1.32.1"},
		{"", "latest", ""},
	} {
		if got := Tag(c.label, c.kube); got != c.want {
			t.Errorf("Tag(%q, %q) = %q, want %q", c.label, c.kube, got, c.want)
		}
	}
	p := defaults
	p.Tag = ""
	if _, err := Manifests(p); err == nil {
		t.Error("rendered without a tag")
	}
}
