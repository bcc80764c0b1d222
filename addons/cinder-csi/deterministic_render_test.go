package cindercsi

import (
	"bytes"
	"testing"

	"github.com/openkeel/keel/addons"
)

// The same cluster renders to the same bytes: keel compile --check and
// review diffs depend on it.
func TestDeterministicRender(t *testing.T) {
	p := Params{ClusterUUID: "u", Prefix: "registry.example.com/m", Tag: "v1.32.0", Sidecars: sidecars, VolumeType: "ssd"}
	a, err := addons.Marshal(render(t, p))
	if err != nil {
		t.Fatal(err)
	}
	b, err := addons.Marshal(render(t, p))
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(a, b) || len(a) == 0 {
		t.Fatalf("two renders differ (%d and %d bytes)", len(a), len(b))
	}
}
