package restapi

import (
	"net/http"
	"strings"
	"testing"

	"github.com/openkeel/keel/intent"
)

// Under Keystone with real lookups, a cluster create makes the reference's
// Nova server groups in the caller's project, once each: <stack_id> for
// the control plane and <stack_id>-default-worker, with the policy of the
// server_group_policies label (else soft-anti-affinity); records them as
// facts; the rendered topology places the machines in them; and the
// cloud-config Secret names them for the teardown.
func TestKeystoneCreateMakesServerGroups(t *testing.T) {
	a := newKeystoneCloudAPI(t)
	kr := a.withKeyring(t)
	tok := a.ks.Issue(t, ksMember.Name, 0)
	r := a.doToken(tok, "POST", "/v1/clustertemplates", p1Template("t1"))
	if r.status != http.StatusCreated {
		t.Fatalf("template: %d %s", r.status, r.body)
	}
	tmplID, _ := r.json(t)["uuid"].(string)
	for _, tc := range []struct {
		name, label, want string
	}{
		{"c1", "", "soft-anti-affinity"},
		{"c2", "anti-affinity", "anti-affinity"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			body := map[string]any{"name": tc.name, "cluster_template_id": tmplID, "master_count": 1, "node_count": 1, "keypair": "alice-key"}
			if tc.label != "" {
				body["labels"] = map[string]string{"server_group_policies": tc.label}
				body["merge_labels"] = true
			}
			r := a.doToken(tok, "POST", "/v1/clusters", body)
			if r.status != http.StatusAccepted {
				t.Fatalf("cluster: %d %s", r.status, r.body)
			}
			uuid, _ := r.json(t)["uuid"].(string)
			st := a.loadState(uuid)
			stack := st.Cluster.StackID
			groups := map[string]string{} // name → ID
			for _, g := range a.services.groups.Groups(ksMember.ProjectID) {
				if g.Name == stack || strings.HasPrefix(g.Name, stack+"-") {
					if _, dup := groups[g.Name]; dup {
						t.Errorf("two groups named %s", g.Name)
					}
					groups[g.Name] = g.ID
					if len(g.Policies) != 1 || g.Policies[0] != tc.want || g.UserID != ksMember.ID {
						t.Errorf("group %s: policies %v of user %s, want [%s] of alice", g.Name, g.Policies, g.UserID, tc.want)
					}
				}
			}
			cp, worker := groups[stack], groups[stack+"-"+intent.DefaultWorkerNodeGroup]
			if len(groups) != 2 || cp == "" || worker == "" {
				t.Fatalf("groups %v: want %s and %s-%s", groups, stack, stack, intent.DefaultWorkerNodeGroup)
			}
			sn, err := a.store.SnapshotHead()
			if err != nil {
				t.Fatal(err)
			}
			f, err := intent.ReadFacts(sn, st.Dir)
			if err != nil {
				t.Fatal(err)
			}
			if f.ServerGroupIDs[intent.DefaultMasterNodeGroup] != cp || f.ServerGroupIDs[intent.DefaultWorkerNodeGroup] != worker {
				t.Errorf("facts record %v, want master %s worker %s", f.ServerGroupIDs, cp, worker)
			}
			rendered := a.renderedServerGroups(t, uuid)
			if rendered[""] != cp || rendered[intent.DefaultWorkerNodeGroup] != worker {
				t.Errorf("rendered serverGroupId %v, want the control plane's %s and the worker's %s", rendered, cp, worker)
			}
			ids := strings.Split(a.cloudConfigOf(t, kr, st.Dir).Annotations[intent.AnnotationServerGroupIDs], ",")
			if len(ids) != 2 || !(ids[0] == cp && ids[1] == worker || ids[0] == worker && ids[1] == cp) {
				t.Errorf("cloud-config names server groups %v, want %s and %s", ids, cp, worker)
			}
		})
	}
	if n := a.services.groups.Creates(); n != 4 {
		t.Errorf("%d groups created for 2 clusters, want 4", n)
	}
}
