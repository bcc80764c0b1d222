package restapi

import (
	"context"
	"testing"
	"time"
)

func TestStats(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	a.cluster(member, "c1", tm.UUID, 2) // 1 master + 2 workers
	tm2 := a.template(member2, "t2", nil)
	a.cluster(member2, "c2", tm2.UUID, 4)
	for _, tc := range []struct {
		name, query     string
		who             caller
		clusters, nodes float64
	}{
		{"own", "", member, 1, 3},
		{"own explicit", "?project_id=p1&type=cluster", reader, 1, 3},
		{"admin totals", "", admin, 2, 8},
		{"admin one project", "?project_id=p2", admin, 1, 5},
	} {
		t.Run(tc.name, func(t *testing.T) {
			r := a.do(tc.who, "", "GET", "/v1/stats"+tc.query, nil)
			if r.status != 200 {
				t.Fatalf("%d %s", r.status, r.body)
			}
			if m := r.json(t); m["clusters"].(float64) != tc.clusters || m["nodes"].(float64) != tc.nodes {
				t.Fatalf("stats %v", m)
			}
		})
	}
	expectError(t, a.do(member, "", "GET", "/v1/stats?project_id=p2", nil), 403, "Not authorized.")
	expectError(t, a.do(member, "", "GET", "/v1/stats?type=node", nil), 400, "Invalid stats type. Allowed values are 'cluster'")
	expectError(t, a.do(member, "", "GET", "/v1/stats?foo=1", nil), 400, `Unknown argument: "foo"`)
}

func TestMServices(t *testing.T) {
	a := newTestAPI(t)
	ctx := context.Background()
	if err := a.db.Heartbeat(ctx, "host-a", "keel", time.Now()); err != nil {
		t.Fatal(err)
	}
	if err := a.db.Heartbeat(ctx, "host-b", "keel", time.Now().Add(-time.Hour)); err != nil {
		t.Fatal(err)
	}
	if err := a.db.Heartbeat(ctx, "host-a", "keel", time.Now()); err != nil {
		t.Fatal(err)
	}
	r := a.do(admin, "", "GET", "/v1/mservices", nil)
	if r.status != 200 {
		t.Fatalf("%d %s", r.status, r.body)
	}
	l := r.json(t)["mservices"].([]any)
	if len(l) != 2 {
		t.Fatalf("services %v", l)
	}
	first, second := l[0].(map[string]any), l[1].(map[string]any)
	if first["host"] != "host-a" || first["state"] != "up" || first["report_count"].(float64) != 2 || first["binary"] != "keel" ||
		second["state"] != "down" {
		t.Fatalf("services %v", l)
	}
	expectError(t, a.do(member, "", "GET", "/v1/mservices", nil), 403, "magnum-service:get_all")
}

func TestFederations(t *testing.T) {
	a := newTestAPI(t)
	for _, path := range []string{"/v1/federations", "/v1/federations/detail"} {
		if r := a.do(member, "", "GET", path, nil); r.status != 200 || len(r.json(t)["federations"].([]any)) != 0 {
			t.Fatalf("%s: %d %s", path, r.status, r.body)
		}
	}
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "", "GET", "/v1/federations/f1", nil), 404, "Federation f1 could not be found.")
		expectError(t, a.do(member, "", "POST", "/v1/federations", `{"name":"f1"}`), 501, "Federations are not implemented by keel.")
		expectError(t, a.do(member, "", "PATCH", "/v1/federations/f1", `[]`), 404, "could not be found")
		expectError(t, a.do(member, "", "DELETE", "/v1/federations/f1", nil), 404, "could not be found")
		expectError(t, a.do(reader, "", "POST", "/v1/federations", `{}`), 403, "federation:create")
	})
}

func TestCredentialsRotate(t *testing.T) {
	a := newTestAPI(t)
	tm := a.template(member, "t1", nil)
	a.cluster(member, "c1", tm.UUID, 1)
	a.expectNoCommit(func() {
		expectError(t, a.do(member, "1.11", "PATCH", "/v1/credentials/c1", nil), 406, "the requested API patch is not supported")
		// Without Keystone there is no caller token to make the credential with.
		expectError(t, a.do(member, "1.12", "PATCH", "/v1/credentials/c1", nil), 400, "needs --auth keystone")
		expectError(t, a.do(member2, "1.12", "PATCH", "/v1/credentials/c1", nil), 404, "could not be found")
		// Magnum's credential:rotate has no admin clause, and the lookup no
		// all_tenants: an admin of another project gets a 404.
		expectError(t, a.do(admin, "1.12", "PATCH", "/v1/credentials/c1", nil), 404, "could not be found")
		expectError(t, a.do(reader, "1.12", "PATCH", "/v1/credentials/c1", nil), 403, "credential:rotate")
	})
}
