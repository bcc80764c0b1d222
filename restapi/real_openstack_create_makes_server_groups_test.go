package restapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2"
	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Nova, a cluster create makes the reference's server
// groups in the caller's project, in the caller's name: <stack_id> for the
// control plane and <stack_id>-default-worker, with the
// server_group_policies label's policy; a nodegroup create makes
// <stack_id>-<nodegroup> with its own, or adopts the group of that name
// already in the project (an earlier attempt's) instead of making a
// second. The rendered topology places the machines in them and the
// cloud-config Secret names them for the teardown; deleting a nodegroup
// leaves its group recorded for the teardown and deletes nothing in Nova.
func TestRealOpenStackCreateMakesServerGroups(t *testing.T) {
	a, cloud, kr := newRealCloudAPI(t)
	p := cloud.NewProject(t)
	p.Keypair(t, "my-key")
	tok := p.Token(t)
	tmpl := a.realTemplate(t, tok, cloud.Image, cloud)
	uuid := a.realCluster(t, tok, tmpl, "c1", "my-key", map[string]string{"server_group_policies": "anti-affinity"})
	a.complete(uuid)
	st := a.loadState(uuid)
	stack := st.Cluster.StackID
	earlier := serverGroup(t, cloud, p, stack+"-cpu", "soft-affinity")
	for _, ng := range []struct{ name, policy string }{{"gpu", "affinity"}, {"cpu", "soft-affinity"}} {
		r := a.doTokenMV(tok, "1.9", "POST", "/v1/clusters/"+uuid+"/nodegroups", map[string]any{"name": ng.name, "node_count": 1,
			"labels": map[string]string{"server_group_policies": ng.policy}, "merge_labels": true})
		if r.status != http.StatusAccepted {
			t.Fatalf("nodegroup %s: %d %s", ng.name, r.status, r.body)
		}
	}

	groups := novaServerGroups(t, cloud, p)
	want := map[string]string{stack: "anti-affinity", stack + "-" + intent.DefaultWorkerNodeGroup: "anti-affinity",
		stack + "-gpu": "affinity", stack + "-cpu": "soft-affinity"}
	if len(groups) != len(want) {
		t.Fatalf("Nova holds %d groups in the project, want %d: %+v", len(groups), len(want), groups)
	}
	ids := map[string]string{}
	for _, g := range groups {
		if g.Policy == nil || want[g.Name] != *g.Policy || g.UserID != p.UserID {
			t.Errorf("group %s: policy %v of user %s, want %q of %s", g.Name, g.Policy, g.UserID, want[g.Name], p.UserID)
		}
		ids[g.Name] = g.ID
	}
	if ids[stack+"-cpu"] != earlier {
		t.Errorf("nodegroup cpu's group is %s, want the earlier %s adopted", ids[stack+"-cpu"], earlier)
	}
	rendered := a.renderedServerGroups(t, uuid)
	if rendered[""] != ids[stack] || rendered[intent.DefaultWorkerNodeGroup] != ids[stack+"-"+intent.DefaultWorkerNodeGroup] ||
		rendered["gpu"] != ids[stack+"-gpu"] || rendered["cpu"] != earlier {
		t.Errorf("rendered serverGroupId %v, want Nova's %v", rendered, ids)
	}
	named := a.cloudConfigOf(t, kr, st.Dir).Annotations[intent.AnnotationServerGroupIDs]
	for name, id := range ids {
		if !strings.Contains(named, id) {
			t.Errorf("the cloud-config Secret names %q, not %s's group %s", named, name, id)
		}
	}

	if r := a.doTokenMV(tok, "1.9", "DELETE", "/v1/clusters/"+uuid+"/nodegroups/gpu", nil); r.status != http.StatusNoContent {
		t.Fatalf("nodegroup delete: %d %s", r.status, r.body)
	}
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	f, err := intent.ReadFacts(sn, st.Dir)
	if err != nil || f.ServerGroupIDs["gpu"] != ids[stack+"-gpu"] || len(f.ServerGroupIDs) != len(want) {
		t.Errorf("facts after the delete record %v (%v): want the %d groups, gpu's kept for the teardown", f.ServerGroupIDs, err, len(want))
	}
	if _, ok := a.renderedServerGroups(t, uuid)["gpu"]; ok {
		t.Error("the deleted nodegroup is still rendered")
	}
	if n := len(novaServerGroups(t, cloud, p)); n != len(want) {
		t.Errorf("Nova holds %d groups after the nodegroup delete, want %d: the API deletes none", n, len(want))
	}
}

// serverGroup makes, as p's user, a server group; it returns its ID.
func serverGroup(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project, name, policy string) string {
	t.Helper()
	cc := userCompute(t, cloud, p)
	g, err := servergroups.Create(context.Background(), cc, servergroups.CreateOpts{Name: name, Policy: policy}).Extract()
	if err != nil {
		t.Fatalf("creating server group %s: %v", name, err)
	}
	return g.ID
}

// userCompute is Nova as p's user, at 2.64 (a group's policy and user).
func userCompute(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project) *gophercloud.ServiceClient {
	t.Helper()
	cc, err := gcos.NewComputeV2(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	cc.Microversion = "2.64"
	return cc
}

// novaServerGroups lists the project's server groups as its user sees
// them (policy and user_id from microversion 2.64).
func novaServerGroups(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project) []servergroups.ServerGroup {
	t.Helper()
	pages, err := servergroups.List(userCompute(t, cloud, p), servergroups.ListOpts{}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gs, err := servergroups.ExtractServerGroups(pages)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}
