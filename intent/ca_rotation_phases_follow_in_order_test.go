package intent

import "testing"

func TestCARotationPhasesFollowInOrder(t *testing.T) {
	cases := []struct {
		r          *CARotation
		inProgress bool
		number     int
		next       string
		marker     string
	}{
		{nil, false, 0, "", ""},
		{&CARotation{Generation: 1, Phase: CAPhaseTrust}, true, 1, CAPhaseSign, "1-trust"},
		{&CARotation{Generation: 1, Phase: CAPhaseSign}, true, 2, CAPhaseFinish, "1-sign"},
		{&CARotation{Generation: 2, Phase: CAPhaseFinish}, false, 3, "", "2-finish"},
	}
	for _, c := range cases {
		if got := c.r.InProgress(); got != c.inProgress {
			t.Errorf("%+v: InProgress %v, want %v", c.r, got, c.inProgress)
		}
		if got := c.r.PhaseNumber(); got != c.number {
			t.Errorf("%+v: PhaseNumber %d, want %d", c.r, got, c.number)
		}
		if got := c.r.Next(); got != c.next {
			t.Errorf("%+v: Next %q, want %q", c.r, got, c.next)
		}
		if got := c.r.Marker(); got != c.marker {
			t.Errorf("%+v: Marker %q, want %q", c.r, got, c.marker)
		}
	}
}
