package status

import (
	"testing"
	"time"
)

// A scale-down (a resize, nodes_to_remove) or a rollout completes only once
// the Machines Cluster API is deleting are gone: its counts leave
// terminating Machines out, so they are settled as soon as the deletion
// starts, while the servers still drain and still show in node_addresses.
func TestResizeCompletesOnlyAfterDeletedMachinesAreGone(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	set := func(n, deleting int64) Replicas {
		return Replicas{Exists: true, Desired: n, Current: n, Ready: n, UpToDate: n, Deleting: deleting}
	}
	in := func(cp, w Replicas) Input {
		return Input{Operation: OpUpdate, InGit: true, DesiredRevision: "r2", AppliedRevision: "r2",
			MasterCount: 1, NodeGroups: map[string]int64{"default-worker": 1},
			StartedAt: now.Add(-time.Minute), Now: now,
			Observed: &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
				ControlPlane: cp, NodeGroups: map[string]Replicas{"default-worker": w}}}
	}
	for _, tc := range []struct {
		name, status, reason string
		in                   Input
	}{
		{"two workers being deleted", UpdateInProgress, "Waiting for nodegroup default-worker: 1/1 machines ready, 1 up to date, 2 being deleted", in(set(1, 0), set(1, 2))},
		{"old control-plane machine being deleted", UpdateInProgress, "Waiting for the control plane: 1/1 machines ready, 1 up to date, 1 being deleted", in(set(1, 1), set(1, 0))},
		{"deleted machines gone", UpdateComplete, "", in(set(1, 0), set(1, 0))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(tc.in)
			if got.Status != tc.status || got.StatusReason != tc.reason {
				t.Errorf("Derive = %s (%q), want %s (%q)", got.Status, got.StatusReason, tc.status, tc.reason)
			}
		})
	}
}
