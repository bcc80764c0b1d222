package server

import (
	"context"
	"net/http"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
)

// With Cluster API's own controllers, a nodegroup created through the
// Magnum API is a new MachineDeployment of the topology: the nodegroup is
// CREATE_IN_PROGRESS until its Machine has a Ready Node, then
// CREATE_COMPLETE (and the cluster UPDATE_COMPLETE). Deleted, it is
// DELETE_IN_PROGRESS while Cluster API still has its MachineDeployment and
// 404 only once the MachineDeployment and its Machines are gone; the
// default nodegroup's Machine is never touched.
func TestRealClusterAPINodeGroupCreateAndDelete(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)
	tmpl := realTemplate(t, sc, "", "calico", nil)
	c := createRealCluster(t, sc, "grouped", tmpl.UUID, 1, 1)
	def := machineDeployment(t, in, c.StackID, "default-worker")
	if def == nil {
		t.Fatal("no default-worker MachineDeployment")
	}
	defMachines := machinesOf(t, in, c.StackID, def.Name)
	wl := workloadClient(t, in, c.StackID)

	one := 1
	if _, err := nodegroups.Create(ctx, sc, c.UUID, nodegroups.CreateOpts{Name: "extra", NodeCount: &one}).Extract(); err != nil {
		t.Fatal(err)
	}
	ng, err := nodegroups.Get(ctx, sc, c.UUID, "extra").Extract()
	if err != nil {
		t.Fatal(err)
	}
	if ng.Status != "CREATE_IN_PROGRESS" {
		t.Fatalf("right after its create: nodegroup status %s (%s), want CREATE_IN_PROGRESS", ng.Status, ng.StatusReason)
	}
	ng = waitNodeGroupStatus(t, sc, c.UUID, "extra", "CREATE_COMPLETE", 6*time.Minute)
	if ng.NodeCount != 1 || len(ng.NodeAddresses) != 1 {
		t.Errorf("nodegroup extra: node_count %d, node_addresses %v, want one", ng.NodeCount, ng.NodeAddresses)
	}
	waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", 2*time.Minute)

	// What Cluster API did: a MachineDeployment of one ready replica, whose
	// Machine's Node is Ready.
	md := machineDeployment(t, in, c.StackID, "extra")
	if md == nil {
		t.Fatal("nodegroup extra is CREATE_COMPLETE without a MachineDeployment")
	}
	if md.Spec.Replicas == nil || *md.Spec.Replicas != 1 || md.Status.ReadyReplicas == nil || *md.Status.ReadyReplicas != 1 {
		t.Errorf("MachineDeployment %s: replicas %v, ready %v, want 1 and 1", md.Name, md.Spec.Replicas, md.Status.ReadyReplicas)
	}
	ms := machinesOf(t, in, c.StackID, md.Name)
	if len(ms) != 1 || !readyNodes(t, wl)[ms[0].Status.NodeRef.Name] {
		t.Fatalf("nodegroup extra: %d Machines, want one with a Ready Node", len(ms))
	}

	if err := nodegroups.Delete(ctx, sc, c.UUID, "extra").ExtractErr(); err != nil {
		t.Fatal(err)
	}
	// DELETE_IN_PROGRESS until Cluster API deleted it, then 404.
	sawDeleting := false
	waitFor(t, 4*time.Minute, "nodegroup extra to be gone", func() bool {
		g, err := nodegroups.Get(ctx, sc, c.UUID, "extra").Extract()
		if err != nil {
			if !gophercloud.ResponseCodeIs(err, http.StatusNotFound) {
				t.Fatalf("nodegroup extra: %v", err)
			}
			return true
		}
		if g.Status != "DELETE_IN_PROGRESS" {
			t.Fatalf("deleted nodegroup extra: status %s (%s), want DELETE_IN_PROGRESS", g.Status, g.StatusReason)
		}
		sawDeleting = true
		return false
	})
	if !sawDeleting {
		t.Error("the deleted nodegroup was never DELETE_IN_PROGRESS")
	}
	if md := machineDeployment(t, in, c.StackID, "extra"); md != nil {
		t.Errorf("nodegroup extra is 404 while its MachineDeployment %s exists", md.Name)
	}
	if ms := machinesOf(t, in, c.StackID, md.Name); len(ms) != 0 {
		t.Errorf("nodegroup extra is 404 while %d of its Machines exist", len(ms))
	}
	if readyNodes(t, wl)[ms[0].Status.NodeRef.Name] {
		t.Errorf("Node %s of the deleted nodegroup is still Ready", ms[0].Status.NodeRef.Name)
	}
	waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", 2*time.Minute)
	after := machinesOf(t, in, c.StackID, def.Name)
	if len(after) != 1 || after[0].UID != defMachines[0].UID {
		t.Errorf("default-worker's Machines changed: %v", machineNames(after))
	}
}
