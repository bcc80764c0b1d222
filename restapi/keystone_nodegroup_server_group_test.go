package restapi

import (
	"net/http"
	"testing"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/novatest"
)

// A nodegroup create ensures the nodegroup's server group
// <stack_id>-<nodegroup> with its server_group_policies label: a group of
// that name already in the project (an earlier attempt's) is adopted, not
// duplicated, and the rendered MachineDeployment is placed in it. Deleting
// the nodegroup leaves the group recorded (it is deleted with the
// cluster), and the other groups untouched.
func TestKeystoneNodeGroupServerGroup(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	a.withKeyring(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	r = a.createP1Cluster(t, tok, tmplID, "c1")
	if r.status != http.StatusAccepted {
		t.Fatalf("cluster: %d %s", r.status, r.body)
	}
	uuid, _ := r.json(t)["uuid"].(string)
	a.complete(uuid)
	stack := a.loadState(uuid).Cluster.StackID
	earlier := a.services.groups.Add(novatest.Group{Name: stack + "-gpu", ProjectID: ksMember.ProjectID, Policies: []string{"affinity"}})
	creates := a.services.groups.Creates()

	for _, ng := range []struct{ name, policy string }{{"gpu", "affinity"}, {"cpu", "soft-affinity"}} {
		r = a.doTokenMV(tok, "1.9", "POST", "/v1/clusters/"+uuid+"/nodegroups", map[string]any{"name": ng.name, "node_count": 1,
			"labels": map[string]string{"server_group_policies": ng.policy}, "merge_labels": true})
		if r.status != http.StatusAccepted {
			t.Fatalf("nodegroup %s: %d %s", ng.name, r.status, r.body)
		}
	}
	if n := a.services.groups.Creates() - creates; n != 1 {
		t.Fatalf("%d groups created for 2 nodegroups, one of whose group existed: want 1", n)
	}
	var cpu string
	for _, g := range a.services.groups.Groups(ksMember.ProjectID) {
		if g.Name == stack+"-cpu" {
			cpu = g.ID
			if g.Policies[0] != "soft-affinity" {
				t.Errorf("group %s policies %v, want [soft-affinity]", g.Name, g.Policies)
			}
		}
	}
	rendered := a.renderedServerGroups(t, uuid)
	if rendered["gpu"] != earlier.ID || cpu == "" || rendered["cpu"] != cpu {
		t.Fatalf("rendered serverGroupId %v, want gpu %s (adopted) and cpu %s", rendered, earlier.ID, cpu)
	}

	r = a.doTokenMV(tok, "1.9", "DELETE", "/v1/clusters/"+uuid+"/nodegroups/gpu", nil)
	if r.status != http.StatusNoContent {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	f, err := intent.ReadFacts(sn, a.loadState(uuid).Dir)
	if err != nil {
		t.Fatal(err)
	}
	if f.ServerGroupIDs["gpu"] != earlier.ID || f.ServerGroupIDs["cpu"] != cpu || len(f.ServerGroupIDs) != 4 {
		t.Errorf("facts after the delete record %v: want the 4 groups, gpu's kept for the teardown", f.ServerGroupIDs)
	}
	if _, ok := a.renderedServerGroups(t, uuid)["gpu"]; ok {
		t.Error("the deleted nodegroup is still rendered")
	}
	if d := a.services.groups.Deletes(); len(d) != 0 {
		t.Errorf("groups deleted by the API: %v", d)
	}
}
