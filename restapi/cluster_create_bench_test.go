package restapi

import (
	"fmt"
	"net/http"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
)

// BenchmarkClusterCreate measures POST /v1/clusters as the embedded
// default takes it (noauth, a keyring: the cluster's CA and service-account
// keys generated and SOPS-encrypted, the cluster compiled, one commit, the
// read model updated), from 1 client (the latency of one create) and from
// 50 concurrent clients spread over ten projects (the throughput; each
// then waits for the others), on a repository that already holds
// `existing` clusters. It reports accepted creates per second and the p50
// and p99 latency of one create:
//
//	go test -run '^$' -bench ClusterCreate -benchtime 200x ./restapi
func BenchmarkClusterCreate(b *testing.B) {
	// Set up from the parent benchmark, once per size: the testing package
	// runs a sub-benchmark several times with growing b.N, and seeding is
	// slow. Later rounds find the clusters of the earlier ones too.
	parent := b
	type setup struct {
		a    *testAPI
		tmpl string
		next int
	}
	setups := map[int]*setup{}
	for _, bench := range []struct{ existing, clients int }{{0, 1}, {0, 50}, {100, 1}, {100, 50}} {
		existing, createClients := bench.existing, bench.clients
		b.Run(fmt.Sprintf("existing=%d/clients=%d", existing, createClients), func(b *testing.B) {
			st := setups[existing]
			if st == nil {
				st = &setup{a: newTestAPI(parent, func(c *Config) { c.MaxClustersPerProject = 1 << 30 })}
				kr, _, err := secrets.GenerateKeyring()
				if err != nil {
					b.Fatal(err)
				}
				st.a.api.cfg.Secrets = &repo.Secrets{Keyring: kr, Cloud: intent.CloudConfig{AuthURL: "https://keystone.example.com/v3"}}
				r := st.a.do(admin, "", http.MethodPost, "/v1/clustertemplates", map[string]any{
					"name": "bench", "coe": "kubernetes", "image_id": "ubuntu-2204-kube", "flavor_id": "m1.medium",
					"master_flavor_id": "m1.large", "external_network_id": "public", "public": true,
					"labels": map[string]string{"kube_tag": "v1.33.4"},
				})
				if r.status != http.StatusCreated {
					b.Fatalf("template: %d %s", r.status, r.body)
				}
				st.tmpl = r.json(b)["uuid"].(string)
				setups[existing] = st
			}
			a, tmpl := st.a, st.tmpl
			create := func(i int) (time.Duration, error) {
				who := caller{fmt.Sprintf("p%d", i%10), "u1", "member,reader"}
				start := time.Now()
				r := a.do(who, "1.10", http.MethodPost, "/v1/clusters", map[string]any{
					"name": fmt.Sprintf("c%d", st.next+i), "cluster_template_id": tmpl, "master_count": 1, "node_count": 2,
				})
				if r.status != http.StatusAccepted {
					return 0, fmt.Errorf("create %d: %d %s", i, r.status, r.body)
				}
				return time.Since(start), nil
			}
			for ; st.next < existing; st.next++ {
				if _, err := create(0); err != nil {
					b.Fatal(err)
				}
			}
			defer func() { st.next += b.N }()
			latencies := make([]time.Duration, b.N)
			jobs := make(chan int)
			var wg sync.WaitGroup
			var mu sync.Mutex
			var firstErr error
			b.ResetTimer()
			start := time.Now()
			for range createClients {
				wg.Go(func() {
					for i := range jobs {
						d, err := create(i)
						mu.Lock()
						latencies[i] = d
						if err != nil && firstErr == nil {
							firstErr = err
						}
						mu.Unlock()
					}
				})
			}
			for i := range b.N {
				jobs <- i
			}
			close(jobs)
			wg.Wait()
			elapsed := time.Since(start)
			b.StopTimer()
			if firstErr != nil {
				b.Fatal(firstErr)
			}
			slices.Sort(latencies)
			b.ReportMetric(float64(b.N)/elapsed.Seconds(), "creates/s")
			b.ReportMetric(float64(latencies[len(latencies)/2].Milliseconds()), "p50-ms")
			b.ReportMetric(float64(latencies[len(latencies)*99/100].Milliseconds()), "p99-ms")
		})
	}
}
