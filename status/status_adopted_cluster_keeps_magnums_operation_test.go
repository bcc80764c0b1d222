package status

import (
	"testing"
	"time"
)

// A cluster adopted from another driver answers with Magnum's operation
// until keel's first one: CREATE_COMPLETE stays CREATE_COMPLETE once keel
// has applied the import and Cluster API shows it settled, and an
// UPDATE_COMPLETE stays an update; keel's own next operation decides after.
func TestAdoptedClusterKeepsMagnumsOperation(t *testing.T) {
	now := time.Date(2026, 12, 3, 12, 0, 0, 0, time.UTC)
	settled := Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1}
	obs := &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
		ControlPlane: settled, NodeGroups: map[string]Replicas{"w": settled}}
	for _, tc := range []struct {
		name, op, magnum, applied, status string
	}{
		{"created by the driver, applied", OpImport, CreateComplete, "r1", CreateComplete},
		{"created by the driver, being applied", OpImport, CreateComplete, "r0", CreateInProgress},
		{"updated by the driver", OpImport, UpdateComplete, "r1", UpdateComplete},
		{"resized through keel since", OpResize, CreateComplete, "r1", UpdateComplete},
		{"a read-only import is not adopted", OpImport, "", "r1", UpdateComplete},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(Input{Operation: tc.op, InGit: true, DesiredRevision: "r1", AppliedRevision: tc.applied,
				AdoptedStatus: tc.magnum, MasterCount: 1, NodeGroups: map[string]int64{"w": 1},
				StartedAt: now.Add(-time.Minute), Now: now, Observed: obs})
			if got.Status != tc.status {
				t.Errorf("Derive = %s (%q), want %s", got.Status, got.StatusReason, tc.status)
			}
		})
	}
}
