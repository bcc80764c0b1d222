package restapi

import (
	"context"
	"strings"
	"testing"

	"github.com/gophercloud/gophercloud/v2/openstack/containerinfra/v1/quotas"
)

func TestQuotas(t *testing.T) {
	a := newTestAPI(t, func(c *Config) { c.MaxLimit = 2 })
	ctx := context.Background()
	res := quotas.Create(ctx, a.client(admin, ""), quotas.CreateOpts{ProjectID: "p1", Resource: "Cluster", HardLimit: 10})
	q, err := res.Extract()
	if err != nil || q.ProjectID != "p1" || q.HardLimit != 10 || q.Resource != "Cluster" {
		t.Fatalf("create: %+v %v", q, err)
	}
	if res.Header.Get("X-Openstack-Request-Id") == "" {
		t.Fatal("no request id")
	}
	if msg := a.lastCommit(); !strings.HasPrefix(msg, "quota p1: Cluster hard_limit 10") {
		t.Fatalf("commit:\n%s", msg)
	}
	for _, p := range []string{"p2", "p3"} {
		if r := a.do(admin, "", "POST", "/v1/quotas", map[string]any{"project_id": p, "resource": "Cluster", "hard_limit": 3}); r.status != 201 {
			t.Fatalf("%d %s", r.status, r.body)
		}
	}

	// Get: the row, or the synthesised default.
	if r := a.do(member, "", "GET", "/v1/quotas/p1/Cluster", nil).json(t); r["hard_limit"].(float64) != 10 {
		t.Fatalf("get: %v", r)
	}
	if r := a.do(admin, "", "GET", "/v1/quotas/p9/Cluster", nil).json(t); r["hard_limit"].(float64) != 20 || r["id"] != nil {
		t.Fatalf("default: %v", r)
	}

	// List: own project unless admin with all_tenants; paging by int id.
	if l := a.do(admin, "", "GET", "/v1/quotas", nil).json(t)["quotas"].([]any); len(l) != 0 {
		t.Fatalf("admin's own project: %v", l)
	}
	page := a.do(admin, "", "GET", "/v1/quotas?all_tenants=True", nil).json(t)
	if len(page["quotas"].([]any)) != 2 || !strings.Contains(page["next"].(string), "marker=2") {
		t.Fatalf("first page: %v", page)
	}
	page = a.do(admin, "", "GET", "/v1/quotas?all_tenants=True&marker=2", nil).json(t)
	if l := page["quotas"].([]any); len(l) != 1 || l[0].(map[string]any)["project_id"] != "p3" {
		t.Fatalf("second page: %v", page)
	}

	// PATCH takes a plain object; an omitted hard_limit keeps the value.
	if r := a.do(admin, "", "PATCH", "/v1/quotas/p1/Cluster", map[string]any{"project_id": "p1", "resource": "Cluster", "hard_limit": 12}); r.status != 202 || r.json(t)["hard_limit"].(float64) != 12 {
		t.Fatalf("patch: %d %s", r.status, r.body)
	}
	a.expectNoCommit(func() {
		if r := a.do(admin, "", "PATCH", "/v1/quotas/p1/Cluster", map[string]any{"project_id": "p1"}); r.status != 202 || r.json(t)["hard_limit"].(float64) != 12 {
			t.Fatalf("patch without hard_limit: %d %s", r.status, r.body)
		}
	})
	if r := a.do(admin, "", "DELETE", "/v1/quotas/p3/Cluster", nil); r.status != 204 {
		t.Fatalf("delete: %d %s", r.status, r.body)
	}
}

func TestQuotaErrors(t *testing.T) {
	a := newTestAPI(t)
	a.do(admin, "", "POST", "/v1/quotas", map[string]any{"project_id": "p1", "hard_limit": 5})
	for _, tc := range []struct {
		name, method, path string
		body               any
		who                caller
		status             int
		want               string
	}{
		{"duplicate", "POST", "/v1/quotas", map[string]any{"project_id": "p1", "resource": "Cluster", "hard_limit": 1}, admin, 409, "Quota for project p1 already exists for resource Cluster."},
		{"resource", "POST", "/v1/quotas", map[string]any{"project_id": "p2", "resource": "Node"}, admin, 400, "Value should be one of: Cluster"},
		{"negative", "POST", "/v1/quotas", map[string]any{"project_id": "p2", "hard_limit": -1}, admin, 400, "Value should be greater or equal to 0"},
		{"no project", "POST", "/v1/quotas", map[string]any{"hard_limit": 1}, admin, 400, "Mandatory field missing."},
		{"member create", "POST", "/v1/quotas", map[string]any{"project_id": "p2"}, member, 403, "quota:create"},
		{"member list", "GET", "/v1/quotas", nil, member, 403, "quota:get_all"},
		{"member patch", "PATCH", "/v1/quotas/p1/Cluster", map[string]any{"hard_limit": 100}, member, 403, "quota:update"},
		{"member delete", "DELETE", "/v1/quotas/p1/Cluster", nil, member, 403, "quota:delete"},
		{"other project get", "GET", "/v1/quotas/p1/Cluster", nil, member2, 403, "Not authorized."},
		{"patch missing", "PATCH", "/v1/quotas/p7/Cluster", map[string]any{"hard_limit": 1}, admin, 404, "Quota could not be found: project_id p7 resource Cluster."},
		{"delete missing", "DELETE", "/v1/quotas/p7/Cluster", nil, admin, 404, "Quota could not be found"},
		{"bad marker", "GET", "/v1/quotas?marker=x", nil, admin, 400, "marker"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a.expectNoCommit(func() { expectError(t, a.do(tc.who, "", tc.method, tc.path, tc.body), tc.status, tc.want) })
		})
	}
}

// The cluster create honours a quota created through the API.
func TestQuotaLimitsClusterCreate(t *testing.T) {
	a := newTestAPI(t)
	a.do(admin, "", "POST", "/v1/quotas", map[string]any{"project_id": "p1", "hard_limit": 1})
	tm := a.template(member, "t1", nil)
	a.cluster(member, "c1", tm.UUID, 1)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.10", "POST", "/v1/clusters", map[string]any{"name": "c2", "cluster_template_id": tm.UUID}), 403,
			"You have reached the maximum clusters per project, 1.")
	})
}
