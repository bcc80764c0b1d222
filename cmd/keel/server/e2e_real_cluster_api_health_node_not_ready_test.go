package server

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// With Cluster API's own controllers, a worker whose kubelet stops (its
// Node's conditions turn Unknown) makes the cluster UNHEALTHY, with that
// node's entry of health_status_reason False and the API server's "ok";
// the status stays CREATE_COMPLETE (health is not an operation). When the
// kubelet posts Ready again the cluster is HEALTHY again. Both within the
// MachineHealthCheck's 5 minutes, so no Machine is replaced.
func TestRealClusterAPIHealthFollowsNodeReady(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)
	tmpl := realTemplate(t, sc, "", "calico", nil)
	c := createRealCluster(t, sc, "ailing", tmpl.UUID, 1, 1)
	md := machineDeployment(t, in, c.StackID, "default-worker")
	if md == nil {
		t.Fatal("no default-worker MachineDeployment")
	}
	ms := machinesOf(t, in, c.StackID, md.Name)
	if len(ms) != 1 {
		t.Fatalf("%d worker Machines, want 1", len(ms))
	}
	worker := ms[0]
	entry := worker.Name + ".Ready"
	if got := c.HealthStatusReason[entry]; got != "True" {
		t.Fatalf("health_status_reason %v: %s is %v, want True", c.HealthStatusReason, entry, got)
	}
	wl := workloadClient(t, in, c.StackID)

	health := func(want, reason string) *clusters.Cluster {
		t.Helper()
		var got *clusters.Cluster
		waitFor(t, 2*time.Minute, "health "+want, func() bool {
			var err error
			got, err = clusters.Get(ctx, sc, c.UUID).Extract()
			return err == nil && got.HealthStatus == want
		})
		if got.Status != "CREATE_COMPLETE" {
			t.Errorf("status %s (%s) with health %s, want CREATE_COMPLETE", got.Status, got.StatusReason, want)
		}
		if got.HealthStatusReason[entry] != reason || got.HealthStatusReason["api"] != "ok" {
			t.Errorf("health %s: health_status_reason %v, want %s %s and api ok", want, got.HealthStatusReason, entry, reason)
		}
		return got
	}

	setKubeletStopped(t, wl, worker.Status.NodeRef.Name, true)
	health("UNHEALTHY", "False")
	// What Cluster API saw: the Machine's NodeHealthy is not True.
	var m clusterv1.Machine
	if err := in.Client.Get(ctx, client.ObjectKeyFromObject(&worker), &m); err != nil {
		t.Fatal(err)
	}
	for _, cond := range m.Status.Conditions {
		if cond.Type == clusterv1.MachineNodeHealthyCondition && cond.Status == metav1.ConditionTrue {
			t.Errorf("Machine %s is NodeHealthy while its Node's kubelet is stopped", m.Name)
		}
	}

	setKubeletStopped(t, wl, worker.Status.NodeRef.Name, false)
	health("HEALTHY", "True")
	if after := machinesOf(t, in, c.StackID, md.Name); len(after) != 1 || after[0].UID != worker.UID {
		t.Errorf("worker Machines %v after a short outage, want %s untouched", machineNames(after), worker.Name)
	}
}
