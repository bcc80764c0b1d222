package simulator

import (
	"context"
	"fmt"
	"strings"
	"testing"

	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// The fail-machines annotation makes new Machines fail with its reason and
// message, visible on the Machine, its OpenStackMachine, a Warning Event and
// the Cluster's conditions; lifting it lets the cluster recover.
func TestFaultFailMachines(t *testing.T) {
	startSimulator(t)
	const reason, message = "QuotaExceeded", "Quota exceeded for instances: Requested 1, but already used 10 of 10 instances"
	c := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)})
	c.Annotations = map[string]string{AnnotationFailMachines: reason + ": " + message}
	applyCluster(t, c)

	var failed clusterv1.Machine
	eventually(t, "a failed Machine", func() string {
		for _, m := range listMachines(t, c.Name) {
			if m.Status.Phase == string(clusterv1.MachinePhaseFailed) {
				failed = m
				return ""
			}
		}
		return "no failed Machine yet"
	})
	for _, typ := range []string{clusterv1.MachineReadyCondition, clusterv1.MachineInfrastructureReadyCondition} {
		cond := meta.FindStatusCondition(failed.Status.Conditions, typ)
		if cond == nil || cond.Status != metav1.ConditionFalse || cond.Reason != reason || cond.Message != message {
			t.Errorf("Machine %s condition %s = %+v, want False %s: %s", failed.Name, typ, cond, reason, message)
		}
	}
	om := getInfraMachine(t, failed.Name)
	if msg := ptr.Deref(om.Status.FailureMessage, ""); msg != message {
		t.Errorf("OpenStackMachine %s failureMessage %q, want %q", failed.Name, msg, message)
	}
	// Events are written after the status, so wait for the event too.
	eventually(t, "a Warning MachineFailed event naming the machine", func() string {
		ev := findEvent(clusterEvents(t, c.Name), EventMachineFailed, failed.Name, reason, message)
		if ev == nil || ev.Type != "Warning" {
			return fmt.Sprintf("no Warning MachineFailed event naming %s: %+v", failed.Name, ev)
		}
		return ""
	})
	eventually(t, "cluster reports the failure", func() string {
		got := getCluster(t, c.Name)
		if p := conditionProblem(got.Status.Conditions, clusterv1.ClusterAvailableCondition, metav1.ConditionFalse); p != "" {
			return p
		}
		cp := meta.FindStatusCondition(got.Status.Conditions, clusterv1.ClusterControlPlaneAvailableCondition)
		if cp == nil || cp.Status != metav1.ConditionFalse || !strings.Contains(cp.Message, failed.Name) || !strings.Contains(cp.Message, reason) {
			return fmt.Sprintf("ControlPlaneAvailable %+v does not name %s and %s", cp, failed.Name, reason)
		}
		return ""
	})
	// The failure stays: no other Machine is made while it is injected.
	if n := len(listMachines(t, c.Name)); n != 1 {
		t.Errorf("%d Machines while failures are injected, want the 1 failed", n)
	}

	got := getCluster(t, c.Name)
	patch := client.MergeFrom(got.DeepCopy())
	delete(got.Annotations, AnnotationFailMachines)
	if err := env.Client.Patch(context.Background(), got, patch); err != nil {
		t.Fatal(err)
	}
	waitAvailable(t, c.Name)
	for _, m := range listMachines(t, c.Name) {
		if m.Name == failed.Name {
			t.Errorf("failed Machine %s was not replaced", m.Name)
		}
	}
}

// An annotation value that is no condition reason becomes the message, with
// a generic reason.
func TestFaultFreeFormMessage(t *testing.T) {
	if f := parseFault("No valid host was found. There are not enough hosts available."); f.reason != ReasonInstanceCreateFailed ||
		f.message != "No valid host was found. There are not enough hosts available." {
		t.Errorf("parseFault(free text) = %+v", f)
	}
	if f := parseFault("FlavorNotFound"); f.reason != "FlavorNotFound" || !strings.Contains(f.message, "FlavorNotFound") {
		t.Errorf("parseFault(reason) = %+v", f)
	}
	if f := parseFault("  "); f != nil {
		t.Errorf("parseFault(blank) = %+v, want none", f)
	}
}

// The pause annotation freezes a cluster while others progress; lifting it
// resumes provisioning.
func TestFaultPauseFreezesProgress(t *testing.T) {
	startSimulator(t)
	paused := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)})
	paused.Annotations = map[string]string{AnnotationPause: "true"}
	applyCluster(t, paused)
	// A cluster applied after the paused one provisions completely in the
	// meantime: the paused one had every chance to progress.
	witness := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)})
	applyCluster(t, witness)
	waitAvailable(t, witness.Name)

	got := getCluster(t, paused.Name)
	if p := conditionProblem(got.Status.Conditions, clusterv1.PausedCondition, metav1.ConditionTrue); p != "" {
		t.Errorf("paused cluster: %s", p)
	}
	if n := len(listInfra(t, kindOpenStackCluster, paused.Name)); n != 0 {
		t.Errorf("paused cluster got %d OpenStackClusters", n)
	}
	if n := len(listMachines(t, paused.Name)); n != 0 {
		t.Errorf("paused cluster got %d Machines", n)
	}

	patch := client.MergeFrom(got.DeepCopy())
	delete(got.Annotations, AnnotationPause)
	if err := env.Client.Patch(context.Background(), got, patch); err != nil {
		t.Fatal(err)
	}
	waitAvailable(t, paused.Name)
}
