package server

import (
	"context"
	"testing"
	"time"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
)

// With --cluster-api=real and network_driver=cilium, Cluster API's own
// ClusterResourceSet controller applies keel's <uuid> set, whose ConfigMap
// carries Cilium's chart: the agent DaemonSet kube-system/cilium arrives in
// the workload cluster, with cilium_tag on its image and cilium_ipv4pool in
// cilium-config, the Nodes become Ready and the cluster CREATE_COMPLETE.
func TestRealClusterAPIDeliversCilium(t *testing.T) {
	ctx := context.Background()
	in, sc := startRealKeel(t)

	tmpl := realTemplate(t, sc, "", "cilium", map[string]string{"cilium_tag": "v1.15.19", "cilium_ipv4pool": "10.120.0.0/16"})
	one := 1
	id, err := clusters.Create(ctx, sc, clusters.CreateOpts{Name: "real-cilium", ClusterTemplateID: tmpl.UUID, MasterCount: &one, NodeCount: &one}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	var got *clusters.Cluster
	waitFor(t, 3*time.Minute, "the cluster's stack", func() bool {
		got, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && got.StackID != ""
	})
	wl := workloadClient(t, in, got.StackID)
	var ds appsv1.DaemonSet
	waitFor(t, 3*time.Minute, "the cilium DaemonSet in the workload cluster", func() bool {
		return wl.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "cilium"}, &ds) == nil
	})
	if img := ds.Spec.Template.Spec.Containers[0].Image; img != "quay.io/cilium/cilium:v1.15.19" {
		t.Errorf("agent image %s, want quay.io/cilium/cilium:v1.15.19", img)
	}
	var cm corev1.ConfigMap
	if err := wl.Get(ctx, client.ObjectKey{Namespace: "kube-system", Name: "cilium-config"}, &cm); err != nil {
		t.Fatal(err)
	}
	if cm.Data["cluster-pool-ipv4-cidr"] != "10.120.0.0/16" {
		t.Errorf("cluster-pool-ipv4-cidr %q", cm.Data["cluster-pool-ipv4-cidr"])
	}
	waitFor(t, 3*time.Minute, "CREATE_COMPLETE", func() bool {
		got, err = clusters.Get(ctx, sc, id).Extract()
		return err == nil && got.Status == "CREATE_COMPLETE"
	})
	var nodes corev1.NodeList
	if err := wl.List(ctx, &nodes); err != nil {
		t.Fatal(err)
	}
	for _, n := range nodes.Items {
		ready := false
		for _, c := range n.Status.Conditions {
			ready = ready || (c.Type == corev1.NodeReady && c.Status == corev1.ConditionTrue)
		}
		if !ready {
			t.Errorf("node %s not Ready", n.Name)
		}
	}
}
