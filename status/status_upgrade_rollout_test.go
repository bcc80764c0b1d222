package status

import (
	"strings"
	"testing"
	"time"
)

// An upgrade (or any update) completes only once Cluster API has observed
// the new spec and every machine runs the new Kubernetes version: right
// after the apply, the counts still describe the old machines, all ready and
// "up to date" with the old spec.
func TestUpgradeCompletesOnlyAfterTheRollout(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	const oldV, newV = "v1.33.4", "v1.34.1"
	set := func(n int64, spec string, machines ...string) Replicas {
		return Replicas{Exists: true, Desired: n, Current: n, Ready: n, UpToDate: n, SpecVersion: spec, MachineVersions: machines}
	}
	obs := func(cp, w Replicas) *Observation {
		return &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
			ControlPlane: cp, NodeGroups: map[string]Replicas{"w": w}}
	}
	in := func(o *Observation) Input {
		return Input{Operation: "upgrade", InGit: true, DesiredRevision: "r2", AppliedRevision: "r2",
			KubeVersion: newV, MasterCount: 3, NodeGroups: map[string]int64{"w": 2},
			StartedAt: now.Add(-time.Minute), Now: now, Observed: o}
	}
	stale := set(3, newV, newV)
	stale.Stale = true
	for _, tc := range []struct {
		name, status, reason string
		o                    *Observation
	}{
		{"applied, topology not propagated yet", UpdateInProgress, "Kubernetes v1.34.1 not rolled out to it yet (it asks for v1.33.4)",
			obs(set(3, oldV, oldV), set(2, oldV, oldV))},
		{"control plane spec changed, not observed yet", UpdateInProgress, "Cluster API has not observed the change yet",
			obs(stale, set(2, oldV, oldV))},
		{"control plane rolling: one old machine left", UpdateInProgress, "machines at v1.33.4, v1.34.1 (upgrading to v1.34.1)",
			obs(set(3, newV, oldV, newV), set(2, oldV, oldV))},
		{"control plane done, workers held back", UpdateInProgress, "Waiting for nodegroup w: Kubernetes v1.34.1 not rolled out",
			obs(set(3, newV, newV), set(2, oldV, oldV))},
		{"workers rolling", UpdateInProgress, "Waiting for nodegroup w: 2/2 machines ready, 2 up to date, machines at v1.33.4, v1.34.1",
			obs(set(3, newV, newV), set(2, newV, oldV, newV))},
		{"every machine upgraded", UpdateComplete, "", obs(set(3, newV, newV), set(2, newV, newV))},
		{"tags with and without v are one version", UpdateComplete, "", obs(set(3, "1.34.1", newV), set(2, newV, "1.34.1"))},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(in(tc.o))
			if got.Status != tc.status || !strings.Contains(got.StatusReason, tc.reason) {
				t.Errorf("Derive = %s (%q), want %s containing %q", got.Status, got.StatusReason, tc.status, tc.reason)
			}
		})
	}
}
