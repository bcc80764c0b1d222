package workload

import (
	"testing"

	"sigs.k8s.io/cluster-api/controlplane/kubeadm/pkg/etcd"
)

// Cluster API's own etcd client (the one KubeadmControlPlane uses) reaches
// each control-plane machine's etcd member by port-forwarding through the
// workload cluster's real kube-apiserver to the etcd-<node> static pod, and
// sees the membership: every control-plane machine, one leader, members
// removable and leadership movable.
func TestEtcdMembersThroughPortForward(t *testing.T) {
	ctx := testContext(t)
	c, p := newCluster(t, "etcd")
	nodes := []Machine{
		{Name: "etcd-control-plane-aaaaa", ControlPlane: true, IP: "10.0.0.21", KubeletVersion: "v1.33.4"},
		{Name: "etcd-control-plane-bbbbb", ControlPlane: true, IP: "10.0.0.22", KubeletVersion: "v1.33.4"},
		{Name: "etcd-control-plane-ccccc", ControlPlane: true, IP: "10.0.0.23", KubeletVersion: "v1.33.4"},
	}
	for _, m := range nodes {
		if err := c.Boot(ctx, m); err != nil {
			t.Fatal(err)
		}
	}
	connect := func(node string) *etcd.Client { return etcdClient(ctx, t, c, p.EtcdCA, node) }

	first := connect(nodes[0].Name)
	members, err := first.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 3 {
		t.Fatalf("members = %d, want 3", len(members))
	}
	if first.LeaderID != hashID(nodes[0].Name) {
		t.Fatalf("leader = %x, want the first control-plane machine", first.LeaderID)
	}
	if err := first.MoveLeader(ctx, hashID(nodes[1].Name)); err != nil {
		t.Fatal(err)
	}
	if err := first.RemoveMember(ctx, hashID(nodes[2].Name)); err != nil {
		t.Fatal(err)
	}
	second := connect(nodes[1].Name)
	if second.LeaderID != hashID(nodes[1].Name) {
		t.Fatalf("after MoveLeader the leader is %x, want the second machine", second.LeaderID)
	}
	members, err = second.Members(ctx)
	if err != nil {
		t.Fatal(err)
	}
	if len(members) != 2 {
		t.Fatalf("after MemberRemove: %d members, want 2", len(members))
	}
	alarms, err := second.Alarms(ctx)
	if err != nil || len(alarms) != 0 {
		t.Fatalf("alarms = %v, %v; want none", alarms, err)
	}
}
