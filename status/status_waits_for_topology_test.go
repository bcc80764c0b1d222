package status

import (
	"strings"
	"testing"
	"time"
)

// An update that changes no count and no version (a new image, flavor or
// template) completes only once Cluster API's topology controller has
// reconciled the Cluster's new spec: until then the KubeadmControlPlane and
// MachineDeployments still carry the previous one, every machine ready and
// up to date with it. An observation taken before the apply says nothing of
// the change either.
func TestUpdateWaitsForTheTopologyController(t *testing.T) {
	now := time.Date(2026, 12, 1, 12, 0, 0, 0, time.UTC)
	settled := Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1}
	obs := func(gen, topo int64, why string) *Observation {
		return &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
			ControlPlane: settled, NodeGroups: map[string]Replicas{"w": settled},
			Generation: gen, TopologyGeneration: topo, TopologyReason: why}
	}
	for _, tc := range []struct {
		name        string
		appliedGen  int64
		o           *Observation
		status, why string
	}{
		{"observation older than the apply", 3, obs(2, 2, ""), UpdateInProgress, "Waiting for Cluster API to see the applied change (Cluster generation 3)"},
		{"topology not reconciled yet", 3, obs(3, 2, ""), UpdateInProgress, "topology controller to reconcile Cluster generation 3"},
		{"topology says why", 3, obs(3, 2, "TopologyReconciled: ReconcileFailed: error reconciling the Cluster topology"), UpdateInProgress,
			"generation 3: TopologyReconciled: ReconcileFailed: error reconciling"},
		{"topology reconciled, counts settled", 3, obs(3, 3, ""), UpdateComplete, ""},
		{"the apply changed no spec", 2, obs(2, 2, ""), UpdateComplete, ""},
		{"generation unknown (a read model from before)", 0, obs(0, 0, ""), UpdateComplete, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(Input{Operation: OpUpdate, InGit: true, DesiredRevision: "r2", AppliedRevision: "r2", AppliedGeneration: tc.appliedGen,
				MasterCount: 1, NodeGroups: map[string]int64{"w": 1}, StartedAt: now.Add(-time.Minute), Now: now, Observed: tc.o})
			if got.Status != tc.status || !strings.Contains(got.StatusReason, tc.why) {
				t.Errorf("Derive = %s (%q), want %s containing %q", got.Status, got.StatusReason, tc.status, tc.why)
			}
		})
	}
}
