package server

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// With Cluster API's own controllers, a resize goes UPDATE_IN_PROGRESS →
// UPDATE_COMPLETE only once the MachineDeployment has the new count of
// ready machines: up, a new Machine joins with its Node; down with
// nodes_to_remove (server UUIDs, as Magnum clients send them), the
// MachineSet controller deletes exactly the Machines keel marked with
// cluster.x-k8s.io/delete-machine, their Nodes leave the workload cluster,
// and the untouched Machine is the one that stays.
func TestRealClusterAPIResizeHonoursNodesToRemove(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)
	tmpl := realTemplate(t, sc, "", "calico", nil)
	c := createRealCluster(t, sc, "resized", tmpl.UUID, 1, 2)
	md := machineDeployment(t, in, c.StackID, "default-worker")
	if md == nil {
		t.Fatal("no default-worker MachineDeployment")
	}
	wl := workloadClient(t, in, c.StackID)

	resize := func(n int, remove []string) {
		t.Helper()
		if _, err := clusters.Resize(ctx, sc, c.UUID, clusters.ResizeOpts{NodeCount: &n, NodesToRemove: remove}).Extract(); err != nil {
			t.Fatal(err)
		}
		// The change is committed: the cluster is in progress at once.
		got, err := clusters.Get(ctx, sc, c.UUID).Extract()
		if err != nil {
			t.Fatal(err)
		}
		if got.Status != "UPDATE_IN_PROGRESS" {
			t.Fatalf("right after the resize to %d: status %s (%s), want UPDATE_IN_PROGRESS", n, got.Status, got.StatusReason)
		}
	}
	settled := func(n int) []clusterv1.Machine {
		t.Helper()
		got := waitRealStatus(t, sc, c.UUID, "UPDATE_COMPLETE", 6*time.Minute)
		if got.NodeCount != n {
			t.Errorf("node_count %d, want %d", got.NodeCount, n)
		}
		ng, err := nodegroups.Get(ctx, sc, c.UUID, "default-worker").Extract()
		if err != nil {
			t.Fatal(err)
		}
		if ng.Status != "UPDATE_COMPLETE" || ng.NodeCount != n || len(ng.NodeAddresses) != n {
			t.Errorf("default-worker: %s, node_count %d, node_addresses %v; want UPDATE_COMPLETE with %d", ng.Status, ng.NodeCount, ng.NodeAddresses, n)
		}
		// What Cluster API did: exactly n Machines, none leaving, each
		// with its Node, Ready in the workload cluster.
		ms := machinesOf(t, in, c.StackID, md.Name)
		if len(ms) != n {
			t.Fatalf("%d Machines at UPDATE_COMPLETE, want %d", len(ms), n)
		}
		ready := readyNodes(t, wl)
		for _, m := range ms {
			if !m.DeletionTimestamp.IsZero() || !m.Status.NodeRef.IsDefined() || !ready[m.Status.NodeRef.Name] {
				t.Errorf("Machine %s: deleting %v, node %q (Ready %v) at UPDATE_COMPLETE", m.Name, !m.DeletionTimestamp.IsZero(), m.Status.NodeRef.Name, ready[m.Status.NodeRef.Name])
			}
		}
		return ms
	}

	resize(3, nil)
	ms := settled(3)

	// Down to one, naming two servers: the first and the last by name, so
	// that neither the oldest nor the newest rule could pick both.
	keep := ms[1]
	gone := []clusterv1.Machine{ms[0], ms[2]}
	resize(1, []string{serverID(&gone[0]), serverID(&gone[1])})
	left := settled(1)
	if left[0].UID != keep.UID {
		t.Fatalf("Machine %s stayed, want %s (nodes_to_remove named %s and %s)", left[0].Name, keep.Name, gone[0].Name, gone[1].Name)
	}
	ready := readyNodes(t, wl)
	for _, m := range gone {
		if err := in.Client.Get(ctx, client.ObjectKeyFromObject(&m), &clusterv1.Machine{}); !apierrors.IsNotFound(err) {
			t.Errorf("Machine %s named in nodes_to_remove still exists (%v)", m.Name, err)
		}
		// The Machine controller deletes its Node before it lets go.
		if err := wl.Get(ctx, client.ObjectKey{Name: m.Status.NodeRef.Name}, &corev1.Node{}); !apierrors.IsNotFound(err) {
			t.Errorf("Node %s of a removed Machine is still in the workload cluster (%v)", m.Status.NodeRef.Name, err)
		}
	}
	if !ready[keep.Status.NodeRef.Name] {
		t.Errorf("Node %s of the kept Machine is not Ready", keep.Status.NodeRef.Name)
	}
}
