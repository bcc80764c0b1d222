package compiler

import (
	"slices"
	"testing"

	"github.com/openkeel/keel/addons/calico"
	"github.com/openkeel/keel/schemas"
)

// The label catalogue allows exactly the Calico releases keel carries: a
// template may name no release the compiler cannot render.
func TestCalicoTagAllowsCarriedReleases(t *testing.T) {
	spec, ok := schemas.Default().Lookup(schemas.LabelCalicoTag)
	if !ok {
		t.Fatal("no calico_tag label")
	}
	if !slices.Equal(spec.Allowed, calico.Releases) {
		t.Fatalf("calico_tag allows %v; keel carries %v", spec.Allowed, calico.Releases)
	}
	if !slices.Contains(calico.Releases, spec.Default) {
		t.Fatalf("calico_tag defaults to %s, which keel does not carry", spec.Default)
	}
}
