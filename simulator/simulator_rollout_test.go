package simulator

import (
	"fmt"
	"testing"

	"k8s.io/utils/ptr"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
)

// A topology version change replaces every Machine, control plane first,
// one at a time (surge by one), and advances the owners' generations.
func TestRolloutOnVersionChange(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 3, worker{name: "default-worker", replicas: count(2)})
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	before := names(listMachines(t, c.Name))
	kcpGen := getKCP(t, c.Name).Generation
	mdGen := getMD(t, c.Name, "default-worker").Generation

	c.Spec.Topology.Version = testVersionNew
	applyCluster(t, c)
	eventually(t, "rollout to "+testVersionNew, func() string {
		// CAPI upgrades the workers only once the control plane is done.
		md := getMD(t, c.Name, "default-worker")
		for _, m := range controlPlaneMachines(t, c.Name) {
			if m.Spec.Version != testVersionNew && md.Spec.Template.Spec.Version == testVersionNew {
				t.Fatalf("MachineDeployment moved to %s while control plane Machine %s runs %s", testVersionNew, m.Name, m.Spec.Version)
			}
		}
		for _, m := range listMachines(t, c.Name) {
			if before[m.Name] {
				return "Machine " + m.Name + " not replaced yet"
			}
			if m.Spec.Version != testVersionNew {
				return fmt.Sprintf("Machine %s runs %s", m.Name, m.Spec.Version)
			}
		}
		return ""
	})
	waitAvailable(t, c.Name)
	kcp := getKCP(t, c.Name)
	checkKCP(t, kcp, 3)
	if kcp.Generation <= kcpGen || kcp.Status.Version != testVersionNew {
		t.Errorf("KubeadmControlPlane generation %d (was %d), status.version %q; want a new generation at %s", kcp.Generation, kcpGen, kcp.Status.Version, testVersionNew)
	}
	if md := getMD(t, c.Name, "default-worker"); md.Generation <= mdGen || md.Status.ObservedGeneration != md.Generation {
		t.Errorf("MachineDeployment generation %d (was %d), observed %d", md.Generation, mdGen, md.Status.ObservedGeneration)
	}
	if n := len(listMachines(t, c.Name)); n != 5 {
		t.Errorf("%d Machines after the rollout, want 5", n)
	}
	for old := range before {
		waitEvent(t, c.Name, EventMachineCreated, "rolling out Kubernetes "+testVersionNew, "replace "+old)
		waitEvent(t, c.Name, EventMachineDeleted, old, "out of date")
	}
}

// A changed flavor override rolls only that MachineDeployment; the new
// OpenStackMachines carry the new flavor and the old template goes away.
func TestRolloutOnFlavorOverride(t *testing.T) {
	startSimulator(t)
	c := newCluster(t, 1, worker{name: "default-worker", replicas: count(1)}, worker{name: "big", replicas: count(2), flavor: "m1.large"})
	applyCluster(t, c)
	waitAvailable(t, c.Name)
	untouched := names(listMachines(t, c.Name))
	rolled := names(workerMachines(t, c.Name, "big"))
	for n := range rolled {
		delete(untouched, n)
	}
	oldTemplate := getMD(t, c.Name, "big").Spec.Template.Spec.InfrastructureRef.Name

	c.Spec.Topology.Workers.MachineDeployments[1].Variables.Overrides[0].Value = jsonValue(t, "m1.xlarge")
	c.Spec.Topology.Workers.MachineDeployments[1].Variables.Overrides = append(c.Spec.Topology.Workers.MachineDeployments[1].Variables.Overrides,
		clusterv1.ClusterVariable{Name: varImageUUID, Value: jsonValue(t, testImageNew)})
	applyCluster(t, c)
	eventually(t, "flavor rollout", func() string {
		ms := workerMachines(t, c.Name, "big")
		if len(ms) != 2 {
			return fmt.Sprintf("%d Machines", len(ms))
		}
		for _, m := range ms {
			if rolled[m.Name] {
				return "Machine " + m.Name + " not replaced yet"
			}
			om := getInfraMachine(t, m.Name)
			flavor, image := ptr.Deref(om.Spec.Flavor, ""), ptr.Deref(om.Spec.Image.ID, "")
			if flavor != "m1.xlarge" || image != testImageNew {
				return fmt.Sprintf("OpenStackMachine %s has flavor %q image %q", m.Name, flavor, image)
			}
		}
		return ""
	})
	waitAvailable(t, c.Name)
	all := names(listMachines(t, c.Name))
	for n := range untouched {
		if !all[n] {
			t.Errorf("Machine %s of another group was replaced", n)
		}
	}
	eventually(t, "old template deleted", func() string {
		for _, tm := range listInfra(t, kindOpenStackMachineTemplate, c.Name) {
			if tm.GetName() == oldTemplate {
				return "OpenStackMachineTemplate " + oldTemplate + " still exists"
			}
		}
		return ""
	})
}
