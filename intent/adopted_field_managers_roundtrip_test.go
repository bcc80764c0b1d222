package intent

import (
	"reflect"
	"testing"
)

// The driver's field managers survive the Cluster's annotation, and what
// FormatFieldManagers never writes is refused.
func TestAdoptedFieldManagersRoundTrip(t *testing.T) {
	for _, ms := range [][]FieldManager{nil, {{Name: "magnum-cluster-api", Operation: "Update"}},
		{{Name: "pykube-ng", Operation: "Update"}, {Name: "kubectl:x", Operation: "Apply"}}} {
		got, err := ParseFieldManagers(FormatFieldManagers(ms))
		if err != nil || !reflect.DeepEqual(got, ms) {
			t.Errorf("%v: read back %v (%v)", ms, got, err)
		}
	}
	for _, s := range []string{",", "Update", "Update:", "Patch:x", "Apply:x,", ":x"} {
		if ms, err := ParseFieldManagers(s); err == nil {
			t.Errorf("%q: %v, want an error", s, ms)
		}
	}
}

// Whatever ParseFieldManagers accepts formats back to the same text.
func FuzzParseFieldManagers(f *testing.F) {
	for _, s := range []string{"", "Update:a", "Apply:a,Update:b", "Update:a:b", ",,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ms, err := ParseFieldManagers(s)
		if err != nil {
			return
		}
		if got := FormatFieldManagers(ms); got != s {
			t.Fatalf("%q → %v → %q", s, ms, got)
		}
	})
}
