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
		{"delete failed", DeleteFailed, "Timeout waiting for the load balancers", with(func(i *Input) {
			i.InGit = false
			i.DeleteFailed, i.DeletingReason = true, "Timeout waiting for the load balancers lb-1 to be deleted."
		})},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(tc.in)
			if got.Status != tc.status || !strings.Contains(got.StatusReason, tc.reason) {
				t.Errorf("Derive = %s (%q), want %s containing %q", got.Status, got.StatusReason, tc.status, tc.reason)
			}
		})
	}
}

// The rules of Warning Events, one row each: the last-resort cause, used
// only while in progress and when no condition says why, never terminal.
func TestDeriveEvents(t *testing.T) {
	now := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	ok := &Observation{Exists: true, Available: true, ControlPlaneAvailable: true, InfrastructureReady: true,
		ControlPlane: Replicas{Exists: true, Desired: 1, Current: 1, Ready: 1, UpToDate: 1},
		NodeGroups:   map[string]Replicas{"w": {Exists: true, Desired: 2, Current: 2, Ready: 2, UpToDate: 2}}}
	base := Input{Operation: OpCreate, InGit: true, DesiredRevision: "r1", AppliedRevision: "r1",
		MasterCount: 1, NodeGroups: map[string]int64{"w": 2}, StartedAt: now.Add(-time.Minute), Deadline: time.Hour, Now: now, Observed: ok}
	with := func(f func(*Input)) Input { in := base; f(&in); return in }
	// notAvailable is base's observation, not available, carrying events.
	notAvailable := func(reason string, evs ...Event) func(*Input) {
		return func(i *Input) {
			o := *ok
			o.Available, o.Reason, o.Events = false, reason, evs
			i.Observed = &o
		}
	}
	quota := Event{Kind: "OpenStackMachine", Name: "m1", Type: EventWarning, Reason: "FailedCreateServer",
		Message: "Quota exceeded for instances", Source: "openstack-controller", At: now.Add(-10 * time.Second)}
	newestCluster := Event{Kind: "Cluster", Name: "c", Type: EventWarning, Reason: "TopologyReconcileFailed", At: now}
	at := func(e Event, t time.Time) Event { e.At = t; return e }
	for _, tc := range []struct {
		name, status, reason string
		in                   Input
		without              string // must not be in the reason
	}{
		{"warning event is the cause while in progress", CreateInProgress, "OpenStackMachine m1: FailedCreateServer: Quota exceeded for instances",
			with(notAvailable("", quota)), ""},
		{"condition beats event", CreateInProgress, "Machine m1: InfrastructureReady: quota",
			with(notAvailable("Machine m1: InfrastructureReady: quota", quota)), "FailedCreateServer"},
		{"most specific object beats the newest event", CreateInProgress, "FailedCreateServer",
			with(notAvailable("", newestCluster, quota)), "TopologyReconcileFailed"},
		{"newest event of the same rank wins", CreateInProgress, "OpenStackMachine m2: FailedCreateServer",
			with(notAvailable("", quota, func() Event { e := at(quota, now); e.Name = "m2"; return e }())), "m1"},
		{"event older than the operation ignored", CreateInProgress, "become available",
			with(notAvailable("", at(quota, now.Add(-2*time.Minute)))), "FailedCreateServer"},
		{"older specific event gives way to a current general one", CreateInProgress, "TopologyReconcileFailed",
			with(notAvailable("", at(quota, now.Add(-2*time.Minute)), newestCluster)), "FailedCreateServer"},
		{"keel's own warning ignored", CreateInProgress, "become available",
			with(notAvailable("", Event{Kind: "Cluster", Name: "c", Type: EventWarning, Reason: "ReconciliationFailed", Source: KeelEventSource, At: now})), "Reconciliation"},
		{"normal event ignored", CreateInProgress, "become available",
			with(notAvailable("", Event{Kind: "Cluster", Name: "c", Type: "Normal", Reason: "Provisioning", At: now})), "Provisioning"},
		{"event of an unknown kind ignored", CreateInProgress, "become available",
			with(notAvailable("", Event{Kind: "Pod", Name: "p", Type: EventWarning, Reason: "BackOff", At: now})), "BackOff"},
		{"event never fails an update", UpdateInProgress, "FailedCreateServer",
			with(func(i *Input) { i.Operation = OpUpdate; notAvailable("", quota)(i) }), ""},
		{"event explains a nodegroup short of machines", UpdateInProgress, "Waiting for nodegroup w: 1/2 machines ready, 1 up to date; OpenStackMachine m1: FailedCreateServer",
			with(func(i *Input) {
				o := *ok
				o.NodeGroups = map[string]Replicas{"w": {Exists: true, Desired: 2, Current: 2, Ready: 1, UpToDate: 1}}
				o.Events = []Event{quota}
				i.Operation, i.Observed = OpUpdate, &o
			}), ""},
		{"terminal failure beats event", CreateFailed, "Machine m1: instance failed", with(func(i *Input) {
			o := *ok
			o.Failure, o.Events = "Machine m1: instance failed", []Event{quota}
			i.Observed = &o
		}), "FailedCreateServer"},
		{"not applied yet: events are about the previous revision", CreateInProgress, "Applying revision", with(func(i *Input) {
			notAvailable("", quota)(i)
			i.AppliedRevision = "r0"
		}), "FailedCreateServer"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := Derive(tc.in)
			if got.Status != tc.status || !strings.Contains(got.StatusReason, tc.reason) {
				t.Errorf("Derive = %s (%q), want %s containing %q", got.Status, got.StatusReason, tc.status, tc.reason)
			}
			if tc.without != "" && strings.Contains(got.StatusReason, tc.without) {
				t.Errorf("Derive = %s (%q), must not mention %q", got.Status, got.StatusReason, tc.without)
			}
		})
	}
}

// CompactEvents keeps the newest candidate per rank, most specific first, so
// EventCause gives the same answer from the compacted list for any since.
func TestCompactEvents(t *testing.T) {
	t0 := time.Date(2026, 11, 30, 12, 0, 0, 0, time.UTC)
	evs := []Event{
		{Kind: "Cluster", Name: "c", Type: EventWarning, Reason: "old", At: t0},
		{Kind: "Cluster", Name: "c", Type: EventWarning, Reason: "new", At: t0.Add(time.Minute)},
		{Kind: "Cluster", Name: "c", Type: EventWarning, Reason: "keel", Source: KeelEventSource, At: t0.Add(time.Hour)},
		{Kind: "OpenStackMachine", Name: "m1", Type: EventWarning, Reason: "quota", At: t0},
		{Kind: "Machine", Name: "m1", Type: "Normal", Reason: "created", At: t0.Add(time.Hour)},
	}
	got := CompactEvents(evs)
	if len(got) != 2 || got[0].Reason != "quota" || got[1].Reason != "new" {
		t.Fatalf("CompactEvents = %+v, want [quota new]", got)
	}
	for _, since := range []time.Time{{}, t0, t0.Add(time.Second), t0.Add(2 * time.Minute)} {
		if a, b := EventCause(evs, since), EventCause(got, since); a != b {
			t.Errorf("since %v: EventCause of all = %q, of compacted = %q", since, a, b)
		}
	}
}
