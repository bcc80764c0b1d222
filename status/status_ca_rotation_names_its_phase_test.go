package status

import (
	"testing"
	"time"

	"github.com/openkeel/keel/intent"
)

// A CA rotation is UPDATE_IN_PROGRESS until its last phase rolled out: each
// phase's reason names it, and a phase that rolled out everywhere asks for
// the next one (Advance) instead of completing the operation.
func TestCARotationNamesItsPhase(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	settled := Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1}
	rolling := Replicas{Exists: true, Desired: 1, Current: 2, Ready: 2, UpToDate: 1}
	obs := func(cp Replicas) *Observation {
		return &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
			ControlPlane: cp, NodeGroups: map[string]Replicas{"w": settled}}
	}
	for _, tc := range []struct {
		name    string
		op      string
		phase   string
		o       *Observation
		status  string
		why     string
		advance bool
	}{
		{"trust rolling", OpRotateCA, intent.CAPhaseTrust, obs(rolling), UpdateInProgress,
			"Rotating the certificate authority, phase 1 of 3 (every machine trusts the old and the new CA): Waiting for the control plane: 2/1 machines ready, 1 up to date", false},
		{"trust rolled out", OpRotateCA, intent.CAPhaseTrust, obs(settled), UpdateInProgress,
			"Rotating the certificate authority, phase 1 of 3 (every machine trusts the old and the new CA): rolled out to every machine; phase 2 (the new CA signs) is committed next", true},
		{"sign rolled out", OpRotateCA, intent.CAPhaseSign, obs(settled), UpdateInProgress,
			"Rotating the certificate authority, phase 2 of 3 (the new CA signs): rolled out to every machine; phase 3 (the old CA is dropped) is committed next", true},
		{"finish rolled out", OpRotateCA, intent.CAPhaseFinish, obs(settled), UpdateComplete, "", false},
		{"a later resize is not a rotation", OpResize, intent.CAPhaseSign, obs(settled), UpdateComplete, "", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(Input{Operation: tc.op, InGit: true, DesiredRevision: "r2", AppliedRevision: "r2",
				CARotation:  &intent.CARotation{Generation: 1, Phase: tc.phase},
				MasterCount: 1, NodeGroups: map[string]int64{"w": 1}, StartedAt: now.Add(-time.Minute), Now: now, Observed: tc.o})
			if got.Status != tc.status || got.StatusReason != tc.why || got.Advance != tc.advance {
				t.Errorf("Derive = %s (%q, advance %v), want %s (%q, advance %v)", got.Status, got.StatusReason, got.Advance, tc.status, tc.why, tc.advance)
			}
		})
	}
}
