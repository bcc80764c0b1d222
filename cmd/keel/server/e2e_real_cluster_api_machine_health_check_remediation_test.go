package server

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// With Cluster API's own controllers and auto_healing_enabled (the
// default), one of two workers whose kubelet stays silent past the
// MachineHealthCheck's 5 minutes is remediated (the kubelet is stopped as
// of 6 minutes ago, so the test does not wait them out): its MachineHealthCheck
// (rendered from the ClusterClass's worker health check) marks it, the
// MachineSet replaces it with a new Machine whose Node is Ready, and the
// cluster, UNHEALTHY meanwhile, is HEALTHY again with the same node_count;
// its status stays CREATE_COMPLETE throughout (no operation ran). (Two
// workers: with one, one unhealthy Machine is 100%, above the check's
// 80% bound, and Cluster API rightly holds back.)
func TestRealClusterAPIMachineHealthCheckReplacesSilentWorker(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)
	tmpl := realTemplate(t, sc, "", "calico", nil)
	c := createRealCluster(t, sc, "healed", tmpl.UUID, 1, 2)
	md := machineDeployment(t, in, c.StackID, "default-worker")
	if md == nil {
		t.Fatal("no default-worker MachineDeployment")
	}
	var mhcs clusterv1.MachineHealthCheckList
	if err := in.Client.List(ctx, &mhcs, client.InNamespace(md.Namespace), client.MatchingLabels{clusterv1.ClusterNameLabel: c.StackID}); err != nil || len(mhcs.Items) == 0 {
		t.Fatalf("no MachineHealthCheck for the cluster (%v)", err)
	}
	ms := machinesOf(t, in, c.StackID, md.Name)
	if len(ms) != 2 {
		t.Fatalf("%d worker Machines, want 2", len(ms))
	}
	sick, well := ms[0], ms[1]
	wl := workloadClient(t, in, c.StackID)
	setKubeletStoppedSince(t, wl, sick.Status.NodeRef.Name, true, time.Now().Add(-6*time.Minute).UTC().Format(time.RFC3339))

	waitFor(t, 2*time.Minute, "UNHEALTHY", func() bool {
		got, err := clusters.Get(ctx, sc, c.UUID).Extract()
		return err == nil && got.HealthStatus == "UNHEALTHY"
	})
	// Cluster API's remediation: the silent Machine goes, a new one comes.
	waitFor(t, 10*time.Minute, "Cluster API to replace the silent worker", func() bool {
		if !apierrors.IsNotFound(in.Client.Get(ctx, client.ObjectKeyFromObject(&sick), &clusterv1.Machine{})) {
			return false
		}
		now := machinesOf(t, in, c.StackID, md.Name)
		if len(now) != 2 {
			return false
		}
		ready := readyNodes(t, wl)
		for _, m := range now {
			if !m.Status.NodeRef.IsDefined() || !ready[m.Status.NodeRef.Name] {
				return false
			}
		}
		return true
	})
	var got *clusters.Cluster
	waitFor(t, 2*time.Minute, "HEALTHY", func() bool {
		var err error
		got, err = clusters.Get(ctx, sc, c.UUID).Extract()
		return err == nil && got.HealthStatus == "HEALTHY"
	})
	if got.Status != "CREATE_COMPLETE" || got.NodeCount != 2 {
		t.Errorf("after the remediation: %s (%s), node_count %d; want CREATE_COMPLETE with 2", got.Status, got.StatusReason, got.NodeCount)
	}
	if err := in.Client.Get(ctx, client.ObjectKeyFromObject(&well), &clusterv1.Machine{}); err != nil {
		t.Errorf("the healthy worker %s: %v", well.Name, err)
	}
	if _, ok := got.HealthStatusReason[sick.Name+".Ready"]; ok {
		t.Errorf("health_status_reason %v still names the replaced Machine %s", got.HealthStatusReason, sick.Name)
	}
	ng, err := nodegroups.Get(ctx, sc, c.UUID, "default-worker").Extract()
	if err != nil {
		t.Fatal(err)
	}
	if ng.Status != "CREATE_COMPLETE" || len(ng.NodeAddresses) != 2 {
		t.Errorf("default-worker: %s with addresses %v, want CREATE_COMPLETE with two", ng.Status, ng.NodeAddresses)
	}
}
