package restapi

import (
	"context"
	"fmt"
	"net/http"
	"testing"

	"github.com/openkeel/keel/status"
)

// fleet is a keel holding `size` clusters over ten projects (p0…p9), one
// of them (probe, in p0) made through the API, the others seeded.
type fleet struct {
	a            *testAPI
	tmpl, probe  string
	created, upd int
}

func newFleet(b *testing.B, size int) *fleet {
	b.Helper()
	f := &fleet{a: newTestAPI(b, func(c *Config) { c.MaxClustersPerProject = 1 << 30 })}
	r := f.a.do(admin, "", http.MethodPost, "/v1/clustertemplates", map[string]any{
		"name": "fleet", "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "m1.medium",
		"master_flavor_id": "m1.large", "external_network_id": "public", "public": true,
		"labels": map[string]string{"kube_tag": "v1.33.4"},
	})
	if r.status != http.StatusCreated {
		b.Fatalf("template: %d %s", r.status, r.body)
	}
	f.tmpl = r.json(b)["uuid"].(string)
	f.probe = f.create(b, "probe")
	seedClusters(b, f.a, size-1)
	return f
}

func (f *fleet) create(b *testing.B, name string) string {
	r := f.a.do(caller{"p0", "u1", "member,reader"}, "1.10", http.MethodPost, "/v1/clusters", map[string]any{
		"name": name, "cluster_template_id": f.tmpl, "master_count": 1, "node_count": 2,
	})
	if r.status != http.StatusAccepted {
		b.Fatalf("create %s: %d %s", name, r.status, r.body)
	}
	return r.json(b)["uuid"].(string)
}

// BenchmarkFleetAPI measures the Magnum API calls keel answers most, and
// the read model's projection of one observed status change, with 10 and
// 1,000 clusters in ten projects (issue 30: each within 2× of its cost at
// 10). The lists are read by an admin, who sees every project, a page of
// limit=10 (the same 10 items at both sizes), and by a member of p0, whose
// project holds 1 and 100 clusters (Magnum's default max_limit is 1000):
//
//	go test -run '^$' -bench FleetAPI -benchtime 200x -count 6 ./restapi
//
// create and update commit (and create grows the fleet by b.N): they run
// last.
func BenchmarkFleetAPI(b *testing.B) {
	p0 := caller{"p0", "u1", "member,reader"}
	for _, size := range []int{10, 1000} {
		b.Run(fmt.Sprintf("clusters=%d", size), func(b *testing.B) {
			f := newFleet(b, size)
			get := func(name string, who caller, path string) {
				b.Run(name, func(b *testing.B) {
					for range b.N {
						if r := f.a.do(who, "1.10", http.MethodGet, path, nil); r.status != http.StatusOK {
							b.Fatalf("%s: %d %s", path, r.status, r.body)
						}
					}
				})
			}
			get("list-page10-admin", admin, "/v1/clusters?limit=10")
			get("detail-page10-admin", admin, "/v1/clusters/detail?limit=10")
			get("list-project", p0, "/v1/clusters")
			get("detail-project", p0, "/v1/clusters/detail")
			get("show", p0, "/v1/clusters/"+f.probe)
			get("show-by-name", p0, "/v1/clusters/probe")
			get("nodegroups", p0, "/v1/clusters/"+f.probe+"/nodegroups")
			get("template", p0, "/v1/clustertemplates/"+f.tmpl)
			b.Run("observe", func(b *testing.B) { f.observe(b) })
			b.Run("update", func(b *testing.B) { f.update(b, p0) })
			b.Run("create", func(b *testing.B) {
				for range b.N {
					f.created++
					f.create(b, fmt.Sprintf("new%d", f.created))
				}
			})
		})
	}
}

// observe projects observations of the probe cluster that flip its
// control plane's availability: a status change each time.
func (f *fleet) observe(b *testing.B) {
	ctx := context.Background()
	for i := range b.N {
		up := i%2 == 0
		f.a.db.SetObservation(ctx, f.probe, &status.Observation{Exists: true, Available: up, ControlPlaneAvailable: up,
			InfrastructureReady: true, ControlPlane: status.Replicas{Exists: true, Desired: 1, Current: 1}})
	}
}

// update PATCHes the probe's node_count between 2 and 3.
func (f *fleet) update(b *testing.B, who caller) {
	for range b.N {
		f.upd++
		patch := fmt.Sprintf(`[{"op":"replace","path":"/node_count","value":%d}]`, 2+f.upd%2)
		if r := f.a.do(who, "1.10", http.MethodPatch, "/v1/clusters/"+f.probe, patch); r.status != http.StatusAccepted {
			b.Fatalf("update: %d %s", r.status, r.body)
		}
	}
}
