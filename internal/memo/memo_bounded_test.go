package memo

import "testing"

// A memo keeps what it is given, never more than Max entries.
func TestMapIsBounded(t *testing.T) {
	m := Map[int, string]{Max: 3}
	for i := range 10 {
		m.Put(i, "v")
		if n := m.Len(); n > 3 {
			t.Fatalf("%d entries kept, the bound is 3", n)
		}
		if v, ok := m.Get(i); !ok || v != "v" {
			t.Fatalf("%d: not kept", i)
		}
	}
}
