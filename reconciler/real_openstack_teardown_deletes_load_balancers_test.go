package reconciler

import (
	"context"
	"slices"
	"testing"
	"time"

	clusterv1 "sigs.k8s.io/cluster-api/api/core/v1beta2"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/kube"
	"github.com/openkeel/keel/internal/openstack"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Octavia and Neutron: when a cluster is deleted, the
// load balancers OCCM made for its Services in its project, and the
// floating IPs on their VIPs, are deleted by keel's service user before
// its CAPI Cluster is asked to go (CAPO deletes the network with it, which
// a VIP port would hold). The other load balancers stay, with their
// floating IPs: another cluster's, one whose cluster name only starts with
// the UUID, and one of another project described as the cluster's.
func TestRealOpenStackTeardownDeletesLoadBalancersBeforeCluster(t *testing.T) {
	cloud := realopenstack.Attach(t)
	p := cloud.NewProject(t)
	f := newFixture(t)
	r, err := New(f.store, env.Client, f.sink, Options{RetryMin: 50 * time.Millisecond, RetryMax: time.Second,
		LoadBalancers:       openstack.New(openstack.Options{Auth: cloud.ServiceAuth(), Region: cloud.Region}),
		LoadBalancerTimeout: 3 * time.Minute, CredentialAttempts: 3})
	if err != nil {
		t.Fatal(err)
	}
	f.rec = r
	st := inProject(f.cluster("lb", 1), p.ID)
	f.write(st)
	ctx := context.Background()
	f.rec.Sync(ctx)
	key := client.ObjectKey{Namespace: kube.Namespace, Name: st.Cluster.StackID}
	release := holdCluster(t, key)
	subnet := p.TenantSubnet(t)
	web := p.OCCMLoadBalancer(t, subnet, "default/web", st.Cluster.UUID, true)
	ingress := p.OCCMLoadBalancer(t, subnet, "kube-system/ingress", st.Cluster.UUID, false)
	kept := []realopenstack.LoadBalancer{
		p.OCCMLoadBalancer(t, subnet, "default/web", "0b9e8d7c-6f5a-4b3c-8d2e-1f0a9b8c7d6e", true),
		p.OCCMLoadBalancer(t, subnet, "default/web", st.Cluster.UUID+"-old", true),
	}
	other := cloud.NewProject(t)
	elsewhere := other.OCCMLoadBalancer(t, other.TenantSubnet(t), "default/web", st.Cluster.UUID, true)

	f.commit("delete cluster", gitstore.Change{Path: st.Dir, Delete: true})
	deleting := func() bool {
		var c clusterv1.Cluster
		if err := env.Client.Get(ctx, key, &c); err != nil {
			t.Fatal(err)
		}
		return c.DeletionTimestamp != nil
	}
	deadline := time.Now().Add(3 * time.Minute)
	for f.rec.Sync(ctx); !deleting(); f.rec.Sync(ctx) {
		if time.Now().After(deadline) {
			t.Fatalf("the CAPI Cluster's delete was not asked in 3 minutes; Octavia holds %v", p.Inventory(t))
		}
		time.Sleep(time.Second)
	}
	var left []string
	for _, r := range p.Inventory(t) {
		if r.Kind == "load balancer" || r.Kind == "floating IP" {
			left = append(left, r.ID)
		}
	}
	var want []string
	for _, lb := range kept {
		want = append(want, lb.ID, lb.FloatingIPID)
	}
	slices.Sort(left)
	slices.Sort(want)
	if !slices.Equal(left, want) {
		t.Fatalf("when the CAPI Cluster's delete was asked the project held %v, want only the others' %v (deleted: %v, %v)",
			left, want, web, ingress)
	}
	if inv := other.Inventory(t); !slices.ContainsFunc(inv, func(r realopenstack.Resource) bool { return r.ID == elsewhere.ID }) ||
		!slices.ContainsFunc(inv, func(r realopenstack.Resource) bool { return r.ID == elsewhere.FloatingIPID }) {
		t.Fatalf("another project's load balancer described as the cluster's was touched: that project holds %v", inv)
	}
	release()
	f.eventually("the teardown to finish", func() bool { return f.sink.isGone(st.Cluster.UUID) })
}

// inProject moves a fixture cluster into project (its folder and its
// documents' project_id).
func inProject(st *intent.ClusterState, project string) *intent.ClusterState {
	st.Cluster.ProjectID = project
	for i := range st.NodeGroups {
		st.NodeGroups[i].ProjectID = project
	}
	st.Dir = intent.ClusterDirOf(&st.Cluster)
	return st
}
