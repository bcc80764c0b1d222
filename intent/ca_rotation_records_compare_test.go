package intent

import "testing"

// Two rotation records are the same when both are absent or both say the
// same generation and phase.
func TestSameCARotation(t *testing.T) {
	trust := &CARotation{Generation: 1, Phase: CAPhaseTrust}
	for _, c := range []struct {
		a, b *CARotation
		same bool
	}{
		{nil, nil, true},
		{nil, trust, false},
		{trust, nil, false},
		{trust, &CARotation{Generation: 1, Phase: CAPhaseTrust}, true},
		{trust, &CARotation{Generation: 1, Phase: CAPhaseSign}, false},
		{trust, &CARotation{Generation: 2, Phase: CAPhaseTrust}, false},
	} {
		if got := SameCARotation(c.a, c.b); got != c.same {
			t.Errorf("SameCARotation(%v, %v) = %v", c.a, c.b, got)
		}
	}
}
