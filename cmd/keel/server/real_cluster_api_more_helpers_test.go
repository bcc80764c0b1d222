package server

import (
	"context"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
	corev1 "k8s.io/api/core/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/simulator/workload"
)

// createRealCluster creates a cluster of masters and workers from tmpl and
// waits until the real controllers made it CREATE_COMPLETE and HEALTHY.
func createRealCluster(t *testing.T, sc *gophercloud.ServiceClient, name, tmpl string, masters, workers int) *clusters.Cluster {
	t.Helper()
	id, err := clusters.Create(context.Background(), sc, clusters.CreateOpts{Name: name, ClusterTemplateID: tmpl, MasterCount: &masters, NodeCount: &workers}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	c := waitRealStatus(t, sc, id, "CREATE_COMPLETE", 8*time.Minute)
	if c.HealthStatus != "HEALTHY" {
		t.Fatalf("health %s (%v) of a CREATE_COMPLETE cluster, want HEALTHY", c.HealthStatus, c.HealthStatusReason)
	}
	return c
}

// waitRealStatus waits until the Magnum API reports status for the
// cluster; any other *_FAILED status before that fails the test at once.
func waitRealStatus(t *testing.T, sc *gophercloud.ServiceClient, id, status string, d time.Duration) *clusters.Cluster {
	t.Helper()
	var c *clusters.Cluster
	waitFor(t, d, status, func() bool {
		var err error
		c, err = clusters.Get(context.Background(), sc, id).Extract()
		if err != nil {
			return false
		}
		if strings.HasSuffix(c.Status, "_FAILED") && c.Status != status {
			t.Fatalf("status %s (%s) while waiting for %s", c.Status, c.StatusReason, status)
		}
		return c.Status == status
	})
	return c
}

// waitNodeGroupStatus is waitRealStatus for one nodegroup.
func waitNodeGroupStatus(t *testing.T, sc *gophercloud.ServiceClient, id, ng, status string, d time.Duration) *nodegroups.NodeGroup {
	t.Helper()
	var g *nodegroups.NodeGroup
	waitFor(t, d, "nodegroup "+ng+" "+status, func() bool {
		var err error
		g, err = nodegroups.Get(context.Background(), sc, id, ng).Extract()
		if err != nil {
			return false
		}
		if strings.HasSuffix(g.Status, "_FAILED") {
			t.Fatalf("nodegroup %s: status %s (%s) while waiting for %s", ng, g.Status, g.StatusReason, status)
		}
		return g.Status == status
	})
	return g
}

// machineDeployment finds the MachineDeployment Cluster API made for the
// topology's nodegroup ng of the cluster stack (nil when there is none).
func machineDeployment(t *testing.T, in *Instance, stack, ng string) *clusterv1.MachineDeployment {
	t.Helper()
	var mds clusterv1.MachineDeploymentList
	if err := in.Client.List(context.Background(), &mds, client.InNamespace(kube.Namespace), client.MatchingLabels{
		clusterv1.ClusterNameLabel: stack, clusterv1.ClusterTopologyMachineDeploymentNameLabel: ng,
	}); err != nil {
		t.Fatal(err)
	}
	switch len(mds.Items) {
	case 0:
		return nil
	case 1:
		return &mds.Items[0]
	}
	t.Fatalf("%d MachineDeployments for nodegroup %s", len(mds.Items), ng)
	return nil
}

// machinesOf lists the Machines of a MachineDeployment, by name.
func machinesOf(t *testing.T, in *Instance, stack, md string) []clusterv1.Machine {
	t.Helper()
	var ms clusterv1.MachineList
	if err := in.Client.List(context.Background(), &ms, client.InNamespace(kube.Namespace), client.MatchingLabels{
		clusterv1.ClusterNameLabel: stack, clusterv1.MachineDeploymentNameLabel: md,
	}); err != nil {
		t.Fatal(err)
	}
	sort.Slice(ms.Items, func(i, j int) bool { return ms.Items[i].Name < ms.Items[j].Name })
	return ms.Items
}

// serverID is the OpenStack server UUID of a Machine (its providerID's
// last part), what Magnum clients pass in nodes_to_remove.
func serverID(m *clusterv1.Machine) string {
	return m.Spec.ProviderID[strings.LastIndex(m.Spec.ProviderID, "/")+1:]
}

// readyNodes returns the names of the workload cluster's Ready Nodes.
func readyNodes(t *testing.T, wl client.Client) map[string]bool {
	t.Helper()
	var nodes corev1.NodeList
	if err := wl.List(context.Background(), &nodes); err != nil {
		t.Fatal(err)
	}
	out := map[string]bool{}
	for _, n := range nodes.Items {
		for _, c := range n.Status.Conditions {
			if c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue {
				out[n.Name] = true
			}
		}
	}
	return out
}

// machineNames names Machines, for messages.
func machineNames(ms []clusterv1.Machine) []string {
	out := make([]string, 0, len(ms))
	for _, m := range ms {
		out = append(out, m.Name)
	}
	return out
}

// setKubeletStopped stops or restarts the simulated kubelet of a workload
// cluster's Node (simulator/workload.AnnotationKubeletStopped).
func setKubeletStopped(t *testing.T, wl client.Client, node string, stopped bool) {
	t.Helper()
	setKubeletStoppedSince(t, wl, node, stopped, "true")
}

// setKubeletStoppedSince stops the simulated kubelet with the annotation's
// value since: "true" (now) or an RFC 3339 time it went silent at.
func setKubeletStoppedSince(t *testing.T, wl client.Client, node string, stopped bool, since string) {
	t.Helper()
	ctx := context.Background()
	n := &corev1.Node{}
	if err := wl.Get(ctx, client.ObjectKey{Name: node}, n); err != nil {
		t.Fatal(err)
	}
	before := n.DeepCopy()
	if stopped {
		metav1.SetMetaDataAnnotation(&n.ObjectMeta, workload.AnnotationKubeletStopped, since)
	} else {
		delete(n.Annotations, workload.AnnotationKubeletStopped)
	}
	if err := wl.Patch(ctx, n, client.MergeFrom(before)); err != nil {
		t.Fatal(err)
	}
}
