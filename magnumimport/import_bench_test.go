package magnumimport_test

import (
	"context"
	"fmt"
	"testing"

	"github.com/openkeel/keel/magnumimport"
)

// BenchmarkImport1000Clusters imports 1,000 clusters with 2 nodegroups
// each (in 10 projects, on one template each) from SQLite into an empty
// repository: the read, the plan, the validation and the 10 commits.
func BenchmarkImport1000Clusters(b *testing.B) {
	if !need(b, "KEEL_REQUIRE_MAGNUM", "magnum-db-manage (python3-magnum)", have("magnum-db-manage")) {
		b.Skip("no Magnum schema")
	}
	m := sqliteDB(b)
	for p := range 10 {
		project := fmt.Sprintf("%032x", p+1)
		tmpl := fmt.Sprintf("00000000-0000-4000-8000-%012x", p+1)
		insertTemplate(b, m, templateRow{id: p + 1, uuid: tmpl, project: project, name: "t", distro: "ubuntu", netDr: "calico",
			labels: map[string]string{"kube_tag": "v1.32.4"}})
		for c := range 100 {
			n := p*100 + c + 1
			uuid := fmt.Sprintf("10000000-0000-4000-8000-%012x", n)
			insertCluster(b, m, clusterRow{id: n, uuid: uuid, project: project, name: fmt.Sprintf("c%d", n), tmpl: tmpl,
				stack: fmt.Sprintf("kube-%05d", n), state: "CREATE_COMPLETE", labels: map[string]string{"kube_tag": "v1.32.4"}})
			for g, role := range []string{"master", "worker"} {
				insertNodeGroup(b, m, nodeGroupRow{id: 2*n + g, uuid: fmt.Sprintf("20000000-0000-4000-8000-%012x", 2*n+g), cluster: uuid,
					project: project, name: "default-" + role, role: role, count: 1 + g, min: 1, isDefault: true})
			}
		}
	}
	src, err := magnumimport.ParseURL(m.url)
	if err != nil {
		b.Fatal(err)
	}
	b.ResetTimer()
	for range b.N {
		b.StopTimer()
		st := newRepo(b)
		b.StartTimer()
		mg, err := magnumimport.Read(context.Background(), src)
		if err != nil {
			b.Fatal(err)
		}
		made, err := magnumimport.Apply(context.Background(), st, mg)
		if err != nil || len(made) != 10 {
			b.Fatalf("commits %d, err %v", len(made), err)
		}
	}
}
