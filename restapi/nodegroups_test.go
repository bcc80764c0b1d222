package restapi

import (
	"context"
	"strconv"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/nodegroups"
	"github.com/gophercloud/gophercloud/v2/pagination"

	"github.com/openkeel/keel/intent"
)

// nodeGroupCluster makes a reachable cluster (api_address observed).
func (a *testAPI) readyCluster(who caller, name string, nodes int) string {
	a.t.Helper()
	tm := a.template(who, name+"-t", nil)
	id := a.cluster(who, name, tm.UUID, nodes)
	a.complete(id)
	return id
}

func TestNodeGroupLifecycle(t *testing.T) {
	a := newTestAPI(t)
	id := a.readyCluster(member, "prod-a", 2)
	sc := a.client(member, "1.9")
	ctx := context.Background()
	count, max := 2, 5
	ng, err := nodegroups.Create(ctx, sc, id, nodegroups.CreateOpts{
		Name: "gpu", NodeCount: &count, MinNodeCount: 1, MaxNodeCount: &max, FlavorID: "g1.large",
		Labels: map[string]string{"extra": "x"}, MergeLabels: func(b bool) *bool { return &b }(true),
	}).Extract()
	if err != nil {
		t.Fatal(err)
	}
	if ng.Name != "gpu" || ng.NodeCount != 2 || ng.MinNodeCount != 1 || *ng.MaxNodeCount != 5 || ng.FlavorID != "g1.large" ||
		ng.ImageID != "ubuntu-2204-kube" || ng.Labels["kube_tag"] != "v1.33.4" || ng.Labels["extra"] != "x" || ng.ID == 0 || ng.ClusterID != id {
		t.Fatalf("created: %+v", ng)
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "cluster prod-a: add nodegroup gpu (2 nodes)") {
		t.Fatalf("commit:\n%s", msg)
	}
	// The compiled topology gained the MachineDeployment in that commit.
	sn, _ := a.store.SnapshotHead()
	st := a.loadState(id)
	rendered, err := sn.ReadFile(intent.RenderedPath(st.Dir) + "/cluster.yaml")
	if err != nil || !strings.Contains(string(rendered), "name: gpu") {
		t.Fatalf("rendered topology lacks gpu: %v\n%s", err, rendered)
	}

	// Get by id, uuid and name.
	for _, ident := range []string{ng.UUID, "gpu", strconv.Itoa(ng.ID)} {
		got, err := nodegroups.Get(ctx, sc, "prod-a", ident).Extract()
		if err != nil || got.UUID != ng.UUID {
			t.Fatalf("get %s: %+v %v", ident, got, err)
		}
	}

	// PATCH min/max → 202 with the full view.
	upd, err := nodegroups.Update(ctx, sc, id, "gpu", []nodegroups.UpdateOpts{
		{Op: nodegroups.ReplaceOp, Path: "/min_node_count", Value: 2},
		{Op: nodegroups.ReplaceOp, Path: "/max_node_count", Value: 3},
	}).Extract()
	if err != nil || upd.MinNodeCount != 2 || *upd.MaxNodeCount != 3 {
		t.Fatalf("update: %+v %v", upd, err)
	}
	// node_labels and node_taints as Python literals.
	r := a.do(member, "1.14", "PATCH", "/v1/clusters/prod-a/nodegroups/gpu", `[
		{"op":"replace","path":"/node_labels","value":"{'gpu': 'a100', 'node.kubernetes.io/pool': 'gpu'}"},
		{"op":"replace","path":"/node_taints","value":"[{'key': 'gpu', 'value': 'true', 'effect': 'NoSchedule'}]"}]`)
	if r.status != 202 {
		t.Fatalf("node labels: %d %s", r.status, r.body)
	}
	body := r.json(t)
	if body["node_labels"].(map[string]any)["gpu"] != "a100" || len(body["node_taints"].([]any)) != 1 {
		t.Fatalf("node labels/taints: %s", r.body)
	}

	// List, role filter and pagination by following next.
	var names []string
	err = nodegroups.List(sc, id, nodegroups.ListOpts{Limit: 1}).EachPage(ctx, func(_ context.Context, p pagination.Page) (bool, error) {
		l, err := nodegroups.ExtractNodeGroups(p)
		for _, x := range l {
			names = append(names, x.Name)
		}
		return true, err
	})
	if err != nil || strings.Join(names, ",") != "default-master,default-worker,gpu" {
		t.Fatalf("paged list: %v %v", names, err)
	}
	page, err := nodegroups.List(sc, id, nodegroups.ListOpts{Role: "master"}).AllPages(ctx)
	if err != nil {
		t.Fatal(err)
	}
	masters, _ := nodegroups.ExtractNodeGroups(page)
	if len(masters) != 1 || masters[0].Name != "default-master" {
		t.Fatalf("role filter: %+v", masters)
	}
	list := a.do(member, "1.9", "GET", "/v1/clusters/prod-a/nodegroups", nil).json(t)["nodegroups"].([]any)
	item := list[2].(map[string]any)
	if _, hasLinks := item["links"]; hasLinks || item["min_node_count"].(float64) != 0 || item["max_node_count"] != nil {
		t.Fatalf("list item: %v", item)
	}

	// Delete: one commit, the file and the MachineDeployment leave Git.
	if err := nodegroups.Delete(ctx, sc, id, "gpu").ExtractErr(); err != nil {
		t.Fatal(err)
	}
	sn, _ = a.store.SnapshotHead()
	rendered, _ = sn.ReadFile(intent.RenderedPath(st.Dir) + "/cluster.yaml")
	if sn.Exists(intent.NodeGroupPath(st.Dir, "gpu")) || strings.Contains(string(rendered), "name: gpu") {
		t.Fatal("deleted nodegroup still in Git")
	}
	expectError(t, a.do(member, "1.9", "GET", "/v1/clusters/prod-a/nodegroups/gpu", nil), 404, "Nodegroup gpu could not be found.")
}

func TestNodeGroupErrors(t *testing.T) {
	a := newTestAPI(t)
	id := a.readyCluster(member, "c1", 1)
	tm := a.template(member, "t2", nil)
	a.cluster(member, "pending", tm.UUID, 1) // no api_address yet
	if r := a.do(member, "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name": "ok"}`); r.status != 202 {
		t.Fatalf("create ok: %d %s", r.status, r.body)
	}
	_ = id
	for _, tc := range []struct {
		name, mv, method, path, body string
		who                          caller
		status                       int
		want                         string
	}{
		{"below 1.9", "1.8", "GET", "/v1/clusters/c1/nodegroups", "", member, 406, "Version 1.8 was requested but the requested API get_all is not supported for this version."},
		{"below 1.9 post", "", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x"}`, member, 406, "not supported for this version"},
		{"no api address", "1.9", "POST", "/v1/clusters/pending/nodegroups", `{"name":"x"}`, member, 409, "Cluster API address is not available yet"},
		{"duplicate", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"ok"}`, member, 409, "A node group with name ok already exists in the cluster c1."},
		{"min above count", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","node_count":1,"min_node_count":2}`, member, 409, "node_count for x is invalid (node_count (1) should be greater or equal to min_node_count (2))."},
		{"max below min", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","node_count":1,"min_node_count":1,"max_node_count":0}`, member, 409, "max_node_count for x is invalid"},
		{"restricted label", "1.14", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","node_labels":{"kubernetes.io/role":"x"}}`, member, 409, "node_labels for x is invalid"},
		{"bad taint effect", "1.14", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","node_taints":[{"key":"a","effect":"Never"}]}`, member, 409, "node_taints for x is invalid"},
		{"taint field", "1.14", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","node_taints":[{"key":"a","effect":"NoSchedule","op":"x"}]}`, member, 409, "unknown taint field op"},
		{"master", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","role":"master"}`, member, 400, "Creating master nodegroups is currently not supported."},
		{"bad name", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"GPU_1"}`, member, 400, "Invalid input for field/attribute name"},
		{"read only", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"x","stack_id":"s"}`, member, 400, "Cannot set read only field."},
		{"delete default", "1.9", "DELETE", "/v1/clusters/c1/nodegroups/default-worker", "", member, 400, "Deleting a default nodegroup is not supported."},
		{"patch internal", "1.9", "PATCH", "/v1/clusters/c1/nodegroups/ok", `[{"op":"replace","path":"/node_count","value":3}]`, member, 400, "'/node_count' is an internal attribute"},
		{"patch bounds", "1.9", "PATCH", "/v1/clusters/c1/nodegroups/ok", `[{"op":"replace","path":"/min_node_count","value":3}]`, member, 409, "node_count for ok is invalid"},
		{"patch master labels", "1.14", "PATCH", "/v1/clusters/c1/nodegroups/default-master", `[{"op":"replace","path":"/node_labels","value":"{'a': 'b'}"}]`, member, 409, "node_labels for default-master is invalid"},
		{"unknown", "1.9", "GET", "/v1/clusters/c1/nodegroups/nope", "", member, 404, "Nodegroup nope could not be found."},
		{"reader create", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"y"}`, reader, 403, "nodegroup:create"},
		{"other project get", "1.9", "GET", "/v1/clusters/c1/nodegroups", "", member2, 404, "Cluster c1 could not be found."},
		{"other project create", "1.9", "POST", "/v1/clusters/c1/nodegroups", `{"name":"y"}`, member2, 404, "could not be found"},
		{"other project patch", "1.9", "PATCH", "/v1/clusters/c1/nodegroups/ok", `[{"op":"replace","path":"/min_node_count","value":0}]`, member2, 404, "could not be found"},
		{"other project delete", "1.9", "DELETE", "/v1/clusters/c1/nodegroups/ok", "", member2, 404, "could not be found"},
		{"admin writes stay home", "1.9", "DELETE", "/v1/clusters/c1/nodegroups/ok", "", admin, 404, "could not be found"},
		{"unknown query", "1.9", "GET", "/v1/clusters/c1/nodegroups?name=x", "", member, 400, `Unknown argument: "name"`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var body any
			if tc.body != "" {
				body = tc.body
			}
			a.expectNoCommit(func() {
				expectError(t, a.do(tc.who, tc.mv, tc.method, tc.path, body), tc.status, tc.want)
			})
		})
	}
	// Admins read every project's nodegroups.
	if r := a.do(admin, "1.9", "GET", "/v1/clusters/c1/nodegroups/ok", nil); r.status != 200 {
		t.Fatalf("admin get: %d %s", r.status, r.body)
	}
}
