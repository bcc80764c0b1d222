package restapi

import (
	"context"
	"fmt"
	"path"
	"sync"
	"testing"

	"github.com/openkeel/keel/intent"
)

// 200 concurrent cluster creates over 10 projects with quotas of 7: every
// accepted create is exactly one commit holding its cluster, every refusal
// is the quota's 403, no project exceeds its quota and no accepted create
// is lost.
func TestConcurrentCreatesRespectQuotas(t *testing.T) {
	if testing.Short() {
		t.Skip("200 creates")
	}
	a := newTestAPI(t)
	const projects, perProject, quota = 10, 20, 7
	templates := map[string]string{}
	for i := 0; i < projects; i++ {
		p := fmt.Sprintf("proj-%d", i)
		if r := a.do(admin, "", "POST", "/v1/quotas", map[string]any{"project_id": p, "hard_limit": quota}); r.status != 201 {
			t.Fatalf("quota: %d %s", r.status, r.body)
		}
		templates[p] = a.template(caller{p, "u-" + p, "member,reader"}, "t-"+p, nil).UUID
	}
	before := a.commitCount()

	type result struct {
		project, uuid string
		status        int
	}
	results := make(chan result, projects*perProject)
	var wg sync.WaitGroup
	for i := 0; i < projects; i++ {
		for j := 0; j < perProject; j++ {
			wg.Add(1)
			go func(p string, j int) {
				defer wg.Done()
				who := caller{p, "u-" + p, "member,reader"}
				r := a.do(who, "1.10", "POST", "/v1/clusters", map[string]any{
					"name": fmt.Sprintf("c%d", j), "cluster_template_id": templates[p], "node_count": 1,
				})
				res := result{project: p, status: r.status}
				if r.status == 202 {
					res.uuid = r.json(t)["uuid"].(string)
				} else if r.status != 403 {
					t.Errorf("%s c%d: %d %s", p, j, r.status, r.body)
				}
				results <- res
			}(fmt.Sprintf("proj-%d", i), j)
		}
	}
	wg.Wait()
	close(results)

	accepted := map[string][]string{}
	total := 0
	for r := range results {
		if r.status == 202 {
			accepted[r.project] = append(accepted[r.project], r.uuid)
			total++
		}
	}
	if n := a.commitCount() - before; n != total {
		t.Fatalf("%d commits for %d accepted creates", n, total)
	}
	sn, err := a.store.SnapshotHead()
	if err != nil {
		t.Fatal(err)
	}
	for p, uuids := range accepted {
		if len(uuids) != quota {
			t.Errorf("%s: %d clusters accepted, quota %d", p, len(uuids), quota)
		}
		dirs, err := sn.List(path.Join(intent.ProjectsDir, p, "clusters"))
		if err != nil || len(dirs) != len(uuids) {
			t.Fatalf("%s: %d folders in Git for %d accepted: %v", p, len(dirs), len(uuids), err)
		}
		for _, u := range uuids {
			if v, err := a.db.GetClusterByUUID(context.Background(), u); err != nil || v == nil || v.ProjectID != p {
				t.Errorf("accepted cluster %s of %s lost: %v", u, p, err)
			}
		}
	}
	if len(accepted) != projects {
		t.Fatalf("only %d projects got clusters", len(accepted))
	}
}
