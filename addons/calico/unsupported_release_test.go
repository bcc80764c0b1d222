package calico

import (
	"strings"
	"testing"
)

// A release keel does not carry is an error naming those it does, never a
// manifest of another release.
func TestUnsupportedReleaseIsRefused(t *testing.T) {
	for _, tag := range []string{"v3.32.1", "v3.28.2", "", "latest"} {
		_, err := Manifests(Params{Tag: tag, IPv4Pool: "10.100.0.0/16"})
		if err == nil || !strings.Contains(err.Error(), strings.Join(Releases, ", ")) {
			t.Errorf("calico_tag %q: err = %v, want one naming %v", tag, err, Releases)
		}
	}
}
