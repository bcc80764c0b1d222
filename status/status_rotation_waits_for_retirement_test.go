package status

import (
	"testing"
	"time"
)

// A credential rotation applied on a settled cluster is UPDATE_IN_PROGRESS,
// with the reconciler's reason, until the retired credentials are gone;
// a cluster not settled says what Cluster API still does first; once the
// operation completed (latched), a later reason does not reopen it.
func TestRotationWaitsForRetirement(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	settled := Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1}
	obs := &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
		ControlPlane: settled, NodeGroups: map[string]Replicas{"w": settled}}
	waiting := "Rotating the application credential: waiting for DaemonSet kube-system/openstack-cloud-controller-manager"
	for _, tc := range []struct {
		name        string
		retiring    string
		completed   string
		o           *Observation
		status, why string
	}{
		{"consumers not moved yet", waiting, "", obs, UpdateInProgress, waiting},
		{"retired credentials deleted", "", "", obs, UpdateComplete, ""},
		{"control plane not settled first", waiting, "", &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
			ControlPlane: Replicas{Exists: true, Desired: 1}}, UpdateInProgress, "Waiting for the control plane: 0/1 machines ready, 0 up to date"},
		{"already completed", waiting, "r2", obs, UpdateComplete, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(Input{Operation: OpUpdate, InGit: true, DesiredRevision: "r2", AppliedRevision: "r2", CompletedRevision: tc.completed,
				RetiringReason: tc.retiring, MasterCount: 1, NodeGroups: map[string]int64{"w": 1}, StartedAt: now.Add(-time.Minute), Now: now, Observed: tc.o})
			if got.Status != tc.status || got.StatusReason != tc.why {
				t.Errorf("Derive = %s (%q), want %s (%q)", got.Status, got.StatusReason, tc.status, tc.why)
			}
		})
	}
}
