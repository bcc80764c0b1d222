package restapi

import (
	"context"
	"net/http"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/clusters"

	"github.com/openkeel/keel/intent"
)

// loadState reads a cluster's intent at HEAD.
func (a *testAPI) loadState(uuid string) *intent.ClusterState {
	a.t.Helper()
	v, err := a.db.GetClusterByUUID(context.Background(), uuid)
	if err != nil || v == nil {
		a.t.Fatalf("cluster %s: %v", uuid, err)
	}
	sn, err := a.store.SnapshotHead()
	if err != nil {
		a.t.Fatal(err)
	}
	st, err := intent.ReadCluster(sn, v.Dir)
	if err != nil {
		a.t.Fatal(err)
	}
	return st
}

func nodeGroupNamed(st *intent.ClusterState, name string) *intent.NodeGroup {
	return findNodeGroupState(st, func(ng *intent.NodeGroup) bool { return ng.Name == name })
}

// keel applies a node_count PATCH (Magnum's CAPI driver fails it): one
// commit resizing the default worker, 202 with the uuid.
func TestClusterPatchNodeCount(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "prod-a", tm.UUID, 3)
	got, err := clusters.Update(context.Background(), a.client(member, ""), id, []clusters.UpdateOpts{
		{Op: clusters.ReplaceOp, Path: "/node_count", Value: 5},
	}).Extract()
	if err != nil || got != id {
		t.Fatalf("update: %q %v", got, err)
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "cluster prod-a: resize default-worker 3 → 5") || !strings.Contains(msg, "Keel-Operation: update") {
		t.Fatalf("commit:\n%s", msg)
	}
	if n := nodeGroupNamed(a.loadState(id), "default-worker").NodeCount; n != 5 {
		t.Fatalf("default-worker node_count %d", n)
	}
	c, err := clusters.Get(context.Background(), a.client(member, ""), id).Extract()
	if err != nil || c.NodeCount != 5 || c.Status != "UPDATE_IN_PROGRESS" {
		t.Fatalf("GET: %+v %v", c, err)
	}
}

// The auto-healer's patch: health status and a Python-literal reason.
func TestClusterPatchHealth(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "c1", tm.UUID, 1)
	r := a.do(member, "1.10", "PATCH", "/v1/clusters/c1", `[
		{"op":"replace","path":"/health_status","value":"UNHEALTHY"},
		{"op":"replace","path":"/health_status_reason","value":"{'api': 'ok', 'c1-node-0.Ready': 'False'}"}]`)
	if r.status != http.StatusAccepted || r.json(t)["uuid"] != id {
		t.Fatalf("%d %s", r.status, r.body)
	}
	c, err := clusters.Get(context.Background(), a.client(member, "1.10"), id).Extract()
	if err != nil || c.HealthStatus != "UNHEALTHY" || c.HealthStatusReason["c1-node-0.Ready"] != "False" {
		t.Fatalf("GET: %+v %v", c, err)
	}
}

func TestClusterPatchErrors(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	a.cluster(member, "c1", tm.UUID, 1)
	for _, tc := range []struct {
		name, mv, query, body string
		who                   caller
		status                int
		want                  string
	}{
		{"name", "", "", `[{"op":"replace","path":"/name","value":"c2"}]`, member, 400, "cannot change cluster property(ies) name."},
		{"several", "", "", `[{"op":"replace","path":"/master_count","value":3},{"op":"replace","path":"/create_timeout","value":5}]`, member, 400, "cannot change cluster property(ies) create_timeout, master_count."},
		{"labels", "", "", `[{"op":"replace","path":"/labels","value":"{'a': 'b'}"}]`, member, 400, "cannot change cluster property(ies) labels."},
		{"remove node_count", "", "", `[{"op":"remove","path":"/node_count"}]`, member, 400, "'/node_count' is a mandatory attribute and can not be removed"},
		{"internal", "", "", `[{"op":"replace","path":"/stack_id","value":"x"}]`, member, 400, "'/stack_id' is an internal attribute"},
		{"string count", "", "", `[{"op":"replace","path":"/node_count","value":"3"}]`, member, 400, "Invalid input for field/attribute node_count"},
		{"bad health", "", "", `[{"op":"replace","path":"/health_status","value":"GREAT"}]`, member, 400, "Value should be one of"},
		{"zero below 1.10", "1.9", "", `[{"op":"replace","path":"/node_count","value":0}]`, member, 400, "Resizing a nodegroup to zero is not supported in the provided microversion."},
		{"rollback below 1.3", "1.2", "?rollback=True", `[{"op":"replace","path":"/node_count","value":2}]`, member, 400, `Unknown argument: "rollback"`},
		{"reader", "", "", `[{"op":"replace","path":"/node_count","value":2}]`, reader, 403, "cluster:update"},
		{"other project", "", "", `[{"op":"replace","path":"/node_count","value":2}]`, member2, 404, "Cluster c1 could not be found."},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() {
				expectError(t, a.do(tc.who, tc.mv, "PATCH", "/v1/clusters/c1"+tc.query, tc.body), tc.status, tc.want)
			})
		})
	}
	// ?rollback= is accepted from 1.3 (keel's rollback is a git revert).
	if r := a.do(member, "1.3", "PATCH", "/v1/clusters/c1/?rollback=True", `[{"op":"replace","path":"/node_count","value":2}]`); r.status != 202 {
		t.Fatalf("rollback at 1.3: %d %s", r.status, r.body)
	}
	// An admin reaches every project's clusters.
	if r := a.do(admin, "", "PATCH", "/v1/clusters/c1", `[{"op":"replace","path":"/node_count","value":3}]`); r.status != 202 {
		t.Fatalf("admin: %d %s", r.status, r.body)
	}
}

// DELETE removes the folder in one commit; a second DELETE while the row is
// DELETE_IN_PROGRESS is a 204 without a commit (gophercloud deletes twice).
func TestClusterDelete(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	id := a.cluster(member, "prod-a", tm.UUID, 1)
	a.expectNoCommit(func() {
		expectError(t, a.do(member2, "", "DELETE", "/v1/clusters/"+id, nil), 404, "could not be found")
		expectError(t, a.do(reader, "", "DELETE", "/v1/clusters/"+id, nil), 403, "cluster:delete")
	})
	a.complete(id) // the management cluster holds it, so the row lives on
	before := a.commitCount()
	if err := clusters.Delete(context.Background(), a.client(member, ""), id).ExtractErr(); err != nil {
		t.Fatal(err)
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "cluster prod-a: delete") || !strings.Contains(msg, "Keel-Operation: delete") {
		t.Fatalf("commit:\n%s", msg)
	}
	sn, _ := a.store.SnapshotHead()
	if v, _ := a.db.GetClusterByUUID(context.Background(), id); v == nil || sn.Exists(v.Dir) || v.Result.Status != "DELETE_IN_PROGRESS" {
		t.Fatalf("after delete: %+v", v)
	}
	if err := clusters.Delete(context.Background(), a.client(member, ""), id).ExtractErr(); err != nil {
		t.Fatalf("second delete: %v", err)
	}
	if n := a.commitCount(); n != before+1 {
		t.Fatalf("%d commits for two deletes, want 1", n-before)
	}
	// Writes to a cluster being deleted are refused without a commit.
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "PATCH", "/v1/clusters/"+id, `[{"op":"replace","path":"/node_count","value":2}]`), 400, "DELETE_IN_PROGRESS")
	})
}
