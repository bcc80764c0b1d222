package restapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	gcos "github.com/gophercloud/gophercloud/v2/openstack"
	"github.com/gophercloud/gophercloud/v2/openstack/compute/v2/servergroups"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/testenv/realopenstack"
)

// Against the real Nova, a cluster create makes the reference's server
// groups in the caller's project, in the caller's name: <stack_id> for the
// control plane and <stack_id>-default-worker, with the
// server_group_policies label's policy; a nodegroup create makes
// <stack_id>-<nodegroup> with its own. The rendered topology places the
// machines in them and the cloud-config Secret names them for the
// teardown.
func TestRealOpenStackCreateMakesServerGroups(t *testing.T) {
	a, cloud, kr := newRealCloudAPI(t)
	p := cloud.NewProject(t)
	p.Keypair(t, "my-key")
	tok := p.Token(t)
	tmpl := a.realTemplate(t, tok, cloud.Image, cloud)
	uuid := a.realCluster(t, tok, tmpl, "c1", "my-key", map[string]string{"server_group_policies": "anti-affinity"})
	a.complete(uuid)
	r := a.doTokenMV(tok, "1.9", "POST", "/v1/clusters/"+uuid+"/nodegroups", map[string]any{"name": "gpu", "node_count": 1,
		"labels": map[string]string{"server_group_policies": "affinity"}, "merge_labels": true})
	if r.status != http.StatusAccepted {
		t.Fatalf("nodegroup: %d %s", r.status, r.body)
	}

	st := a.loadState(uuid)
	stack := st.Cluster.StackID
	groups := novaServerGroups(t, cloud, p)
	want := map[string]string{stack: "anti-affinity", stack + "-" + intent.DefaultWorkerNodeGroup: "anti-affinity",
		stack + "-gpu": "affinity"}
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
	rendered := a.renderedServerGroups(t, uuid)
	if rendered[""] != ids[stack] || rendered[intent.DefaultWorkerNodeGroup] != ids[stack+"-"+intent.DefaultWorkerNodeGroup] ||
		rendered["gpu"] != ids[stack+"-gpu"] {
		t.Errorf("rendered serverGroupId %v, want Nova's %v", rendered, ids)
	}
	named := a.cloudConfigOf(t, kr, st.Dir).Annotations[intent.AnnotationServerGroupIDs]
	for name, id := range ids {
		if !strings.Contains(named, id) {
			t.Errorf("the cloud-config Secret names %q, not %s's group %s", named, name, id)
		}
	}
}

// novaServerGroups lists the project's server groups as its user sees
// them (policy and user_id from microversion 2.64).
func novaServerGroups(t *testing.T, cloud *realopenstack.Cloud, p *realopenstack.Project) []servergroups.ServerGroup {
	t.Helper()
	cc, err := gcos.NewComputeV2(p.Provider(t), cloud.Endpoint())
	if err != nil {
		t.Fatal(err)
	}
	cc.Microversion = "2.64"
	pages, err := servergroups.List(cc, servergroups.ListOpts{}).AllPages(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	gs, err := servergroups.ExtractServerGroups(pages)
	if err != nil {
		t.Fatal(err)
	}
	return gs
}
