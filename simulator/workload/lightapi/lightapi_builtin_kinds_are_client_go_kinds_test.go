package lightapi

import "testing"

// The hand-written table of built-ins names kinds clients can decode.
func TestBuiltinKindsAreClientGoKinds(t *testing.T) {
	for _, r := range builtin {
		if _, ok := r.typed(); !ok {
			t.Errorf("%s: kind %s/%s %s is not in the scheme", r.name, r.group, r.version, r.kind)
		}
	}
}
