package cilium

import (
	"fmt"
	"testing"

	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"

	"github.com/openkeel/keel/addons"
)

// Payload is the rendered chart as one YAML stream, the same whether it
// was rendered for this call, remembered, or rendered again once the memo
// reached its bound and was emptied.
func TestPayloadIsTheRender(t *testing.T) {
	p := params()
	p.HubbleUI = true
	want, err := addons.Marshal(render(t, p))
	if err != nil {
		t.Fatal(err)
	}
	payload := func(p Params) string {
		t.Helper()
		s, err := Payload(p)
		if err != nil {
			t.Fatal(err)
		}
		return s
	}
	for _, when := range []string{"rendered", "remembered"} {
		if payload(p) != string(want) {
			t.Fatalf("%s payload differs from the render", when)
		}
	}
	// Fill the memo to its bound (with empty renders, cheaper than Helm's).
	for j := payloads.Len(); j < maxPayloads; j++ {
		q := p
		q.IPv4Pool = fmt.Sprintf("172.16.%d.0/24", j)
		if _, err := payloads.Get(q, func(Params) ([]*unstructured.Unstructured, error) { return nil, nil }); err != nil {
			t.Fatal(err)
		}
	}
	other := p
	other.Tag = "v1.15.19"
	if payload(other) == string(want) {
		t.Fatal("another cilium_tag gets the same payload")
	}
	if n := payloads.Len(); n != 1 {
		t.Fatalf("memo holds %d payloads past its bound, want 1", n)
	}
	if payload(p) != string(want) {
		t.Fatal("payload rendered again differs from the render")
	}
}
