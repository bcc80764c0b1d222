package calico

import "testing"

// The same parameters give the same bytes, whether rendered afresh or
// taken from the cache, and a caller changing the objects it was given
// does not change what the next caller gets.
func TestPayloadIsDeterministic(t *testing.T) {
	p := Params{Tag: Releases[len(Releases)-1], IPv4Pool: "10.100.0.0/16", Prefix: "registry.example.com/m"}
	first, err := Payload(p)
	if err != nil {
		t.Fatal(err)
	}
	objs, err := Manifests(p)
	if err != nil {
		t.Fatal(err)
	}
	for _, o := range objs {
		o.SetName("changed")
	}
	// Push p out of the cache, then render it afresh.
	for i := range cacheSize {
		if _, err := Payload(Params{Tag: p.Tag, IPv4Pool: "10.100.0.0/16", Prefix: "r" + string(rune('a'+i))}); err != nil {
			t.Fatal(err)
		}
	}
	again, err := Payload(p)
	if err != nil {
		t.Fatal(err)
	}
	if first != again {
		t.Fatal("the same parameters rendered different bytes")
	}
	cached, _ := Payload(p)
	if cached != first {
		t.Fatal("the cached payload differs from the rendered one")
	}
}
