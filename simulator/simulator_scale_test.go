package simulator

import (
	"context"
	"fmt"
	"testing"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// Scaling the topology adds and removes Machines one at a time; a scale
// down removes the Machine annotated cluster.x-k8s.io/delete-machine, not
// the one the default order would pick.
func TestScaleUpAndDownHonoursDeleteMachine(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)})
	applyCluster(t, c)
	waitAvailable(t, c.Name)

	c.Spec.Topology.ControlPlane.Replicas = count(3)
	c.Spec.Topology.Workers.MachineDeployments[0].Replicas = count(3)
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	if n := len(controlPlaneMachines(t, c.Name)); n != 3 {
		t.Fatalf("%d control plane Machines after scaling to 3", n)
	}
	workers := workerMachines(t, c.Name, "default-worker")
	if len(workers) != 3 {
		t.Fatalf("%d worker Machines after scaling to 3", len(workers))
	}
	checkKCP(t, getKCP(t, c.Name), 3)

	// Without the annotation the oldest worker goes first: mark the newest.
	victim := workers[0]
	for _, m := range workers[1:] {
		if victim.CreationTimestamp.Before(&m.CreationTimestamp) || (victim.CreationTimestamp.Equal(&m.CreationTimestamp) && victim.Name < m.Name) {
			victim = m
		}
	}
	patch := client.MergeFrom(victim.DeepCopy())
	victim.Annotations[clusterv1.DeleteMachineAnnotation] = "yes"
	if err := env.Client.Patch(context.Background(), &victim, patch); err != nil {
		t.Fatal(err)
	}
	c.Spec.Topology.Workers.MachineDeployments[0].Replicas = count(2)
	applyCluster(t, c)
	eventually(t, "scale down to 2 workers", func() string {
		ms := workerMachines(t, c.Name, "default-worker")
		if len(ms) != 2 {
			return fmt.Sprintf("%d worker Machines", len(ms))
		}
		md := getMD(t, c.Name, "default-worker")
		if ptr.Deref(md.Status.Replicas, -1) != 2 || md.Status.Phase != string(clusterv1.MachineDeploymentPhaseRunning) {
			return fmt.Sprintf("MachineDeployment status replicas %d phase %s", ptr.Deref(md.Status.Replicas, -1), md.Status.Phase)
		}
		return ""
	})
	left := names(workerMachines(t, c.Name, "default-worker"))
	if left[victim.Name] {
		t.Errorf("Machine %s annotated %s survived the scale down", victim.Name, clusterv1.DeleteMachineAnnotation)
	}
	for _, m := range workers {
		if m.Name != victim.Name && !left[m.Name] {
			t.Errorf("Machine %s was deleted instead of %s", m.Name, victim.Name)
		}
	}
	waitEvent(t, c.Name, EventMachineDeleted, victim.Name, "scaling down")

	c.Spec.Topology.ControlPlane.Replicas = count(1)
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	if n := len(controlPlaneMachines(t, c.Name)); n != 1 {
		t.Errorf("%d control plane Machines after scaling to 1", n)
	}
}

// Adding a MachineDeployment entry creates it; removing one deletes its
// Machines, then it.
func TestScaleAddsAndRemovesMachineDeployments(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)})
	applyCluster(t, c)
	waitAvailable(t, c.Name)

	c.Spec.Topology.Workers.MachineDeployments = append(c.Spec.Topology.Workers.MachineDeployments,
		newCluster(t, 1, worker{name: "extra", replicas: count(2)}).Spec.Topology.Workers.MachineDeployments...)
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	if n := len(workerMachines(t, c.Name, "extra")); n != 2 {
		t.Fatalf("%d Machines in the added MachineDeployment, want 2", n)
	}
	extra := getMD(t, c.Name, "extra")

	c.Spec.Topology.Workers.MachineDeployments = c.Spec.Topology.Workers.MachineDeployments[:1]
	applyCluster(t, c)
	eventually(t, "removed MachineDeployment gone", func() string {
		var md clusterv1.MachineDeployment
		err := env.Client.Get(context.Background(), client.ObjectKeyFromObject(extra), &md)
		if err == nil {
			return "MachineDeployment " + extra.Name + " still exists"
		}
		for _, m := range listMachines(t, c.Name) {
			if m.Labels[clusterv1.MachineDeploymentNameLabel] == extra.Name {
				return "Machine " + m.Name + " still exists"
			}
		}
		return ""
	})
	waitAvailable(t, c.Name)
	if n := len(workerMachines(t, c.Name, "default-worker")); n != 1 {
		t.Errorf("%d Machines left in default-worker, want 1", n)
	}
}

// An autoscaled entry (no replicas) starts at the autoscaler's minimum; the
// simulator then follows the MachineDeployment's replicas, which the
// autoscaler owns, rather than resetting them from the topology.
func TestScaleFollowsAutoscaledMachineDeployment(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 1, worker{name: "default-worker", min: "2", max: "5"})
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	md := getMD(t, c.Name, "default-worker")
	if ptr.Deref(md.Spec.Replicas, -1) != 2 || len(workerMachines(t, c.Name, "default-worker")) != 2 {
		t.Fatalf("autoscaled MachineDeployment has %d replicas and %d Machines, want the minimum 2",
			ptr.Deref(md.Spec.Replicas, -1), len(workerMachines(t, c.Name, "default-worker")))
	}

	// The cluster autoscaler scales the MachineDeployment up.
	patch := client.MergeFrom(md.DeepCopy())
	md.Spec.Replicas = ptr.To(int32(4))
	if err := env.Client.Patch(context.Background(), md, patch, client.FieldOwner("cluster-autoscaler")); err != nil {
		t.Fatal(err)
	}
	// keel applies the Cluster again, still without replicas.
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	md = getMD(t, c.Name, "default-worker")
	if n := len(workerMachines(t, c.Name, "default-worker")); ptr.Deref(md.Spec.Replicas, -1) != 4 || n != 4 {
		t.Errorf("after the autoscaler asked for 4: MachineDeployment replicas %d, %d Machines", ptr.Deref(md.Spec.Replicas, -1), n)
	}
	if md.Annotations[clusterv1.AutoscalerMinSizeAnnotation] != "2" || md.Annotations[clusterv1.AutoscalerMaxSizeAnnotation] != "5" {
		t.Errorf("MachineDeployment annotations %v, want the autoscaler bounds from the topology", md.Annotations)
	}
}
