package status

import (
	"strings"
	"testing"
	"time"
)

// Every rule of Derive, one row each.
func TestDerive(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ok := &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
		ControlPlane: Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1},
		NodeGroups:   map[string]Replicas{"w": {Exists: true, Desired: 2, Current: 2, Ready: 2, UpToDate: 2}}}
	base := Input{Operation: OpCreate, InGit: true, DesiredRevision: "r1", AppliedRevision: "r1",
		MasterCount: 1, NodeGroups: map[string]int64{"w": 2}, StartedAt: now.Add(-time.Minute), Deadline: time.Hour, Now: now, Observed: ok}
	with := func(f func(*Input)) Input { in := base; f(&in); return in }
	for _, tc := range []struct {
		name, status, reason string
		in                   Input
	}{
		{"settled create", CreateComplete, "", base},
		{"settled update", UpdateComplete, "", with(func(i *Input) { i.Operation = "resize" })},
		{"not applied yet", CreateInProgress, "Applying revision", with(func(i *Input) { i.AppliedRevision = "r0" })},
		{"apply error retried", CreateInProgress, "retried: boom", with(func(i *Input) { i.AppliedRevision = "r0"; i.ApplyError = "boom" })},
		{"stalled", UpdateFailed, "cannot downgrade", with(func(i *Input) {
			i.Operation = "update"
			i.AppliedRevision, i.ApplyError, i.ApplyStalled = "r0", "cannot downgrade", true
		})},
		{"no CAPI cluster yet", CreateInProgress, "appear", with(func(i *Input) { i.Observed = nil })},
		{"cause stated while in progress", CreateInProgress, "Machine m1: quota", with(func(i *Input) {
			o := *ok
			o.Available, o.Reason = false, "Machine m1: quota"
			i.Observed = &o
		})},
		{"terminal failure", CreateFailed, "Machine m1: instance failed", with(func(i *Input) {
			o := *ok
			o.Failure = "Machine m1: instance failed"
			i.Observed = &o
		})},
		{"timeout", CreateFailed, "timed out after 1h0m0s", with(func(i *Input) {
			o := *ok
			o.Available = false
			i.Observed, i.StartedAt = &o, now.Add(-2*time.Hour)
		})},
		{"workers short", CreateInProgress, "nodegroup w: 1/2", with(func(i *Input) {
			o := *ok
			o.NodeGroups = map[string]Replicas{"w": {Exists: true, Desired: 2, Current: 2, Ready: 1, UpToDate: 2}}
			i.Observed = &o
		})},
		{"autoscaled count", CreateComplete, "", with(func(i *Input) { i.NodeGroups = map[string]int64{"w": -1} })},
		{"latched", CreateComplete, "", with(func(i *Input) { i.CompletedRevision = "r1"; i.Observed = &Observation{Exists: true} })},
		{"deleting", DeleteInProgress, "Waiting", with(func(i *Input) { i.InGit = false; i.DeletingReason = "Waiting for CAPI" })},
		{"deleted", DeleteComplete, "", with(func(i *Input) { i.InGit = false; i.Observed = nil })},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(tc.in)
			if got.Status != tc.status || !strings.Contains(got.StatusReason, tc.reason) {
				t.Errorf("Derive = %s (%q), want %s containing %q", got.Status, got.StatusReason, tc.status, tc.reason)
			}
		})
	}
}
