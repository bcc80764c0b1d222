package restapi

import (
	"context"
	"fmt"
	"net/http"
	"path"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/google/uuid"

	"github.com/openkeel/keel/gitstore"
	"github.com/openkeel/keel/intent"
	"github.com/openkeel/keel/internal/secrets"
	"github.com/openkeel/keel/repo"
	"github.com/openkeel/keel/restapi/write"
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
//
// The 100 existing clusters are made through the API; the 10,000 are
// seeded by seedClusters, in one commit.
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
	for _, bench := range []struct{ existing, clients int }{{0, 1}, {0, 50}, {100, 1}, {100, 50}, {10000, 1}, {10000, 50}} {
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
			for ; st.next < min(existing, 100); st.next++ {
				if _, err := create(0); err != nil {
					b.Fatal(err)
				}
			}
			if st.next < existing {
				seedClusters(b, a, existing-st.next)
				st.next = existing
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

// seedClusters adds n clusters to the repository in one commit, spread
// over the projects the benchmark creates in, and projects them into the
// read model. Each is a copy of a cluster the API made, with its own name,
// UUID, stack id, integer ids and nodegroups, but only its intent documents
// (cluster.yaml, nodegroups/): a create reads nothing else of the other
// clusters (it lists the clusters folders, for the quota and the stack
// ids), and compiling 10,000 clusters through the API would take the
// benchmark's whole budget.
func seedClusters(b *testing.B, a *testAPI, n int) {
	b.Helper()
	head, err := a.store.SnapshotHead()
	if err != nil {
		b.Fatal(err)
	}
	var model *intent.ClusterState
	projects, _ := head.List(intent.ProjectsDir)
	for _, p := range projects {
		clusters, _ := head.List(path.Join(intent.ProjectsDir, p.Name, "clusters"))
		if len(clusters) > 0 {
			if model, err = intent.ReadCluster(head, path.Join(intent.ProjectsDir, p.Name, "clusters", clusters[0].Name)); err != nil {
				b.Fatal(err)
			}
			break
		}
	}
	if model == nil {
		b.Fatal("seedClusters needs a cluster made through the API")
	}
	_, err = a.store.Update(context.Background(), func(sn *gitstore.Snapshot) (*gitstore.Commit, error) {
		seq, err := intent.ReadSequences(sn)
		if err != nil {
			return nil, err
		}
		changes := make([]gitstore.Change, 0, 3*n+1)
		for i := range n {
			cl := model.Cluster
			seq.Clusters++
			cl.ID, cl.UUID = seq.Clusters, uuid.NewString()
			cl.Name, cl.ProjectID = fmt.Sprintf("seed%d", i), fmt.Sprintf("p%d", i%10)
			// Distinct by construction (base 36 of i), and unlike the
			// random ones the API draws only by the "seed" names.
			id := strconv.FormatInt(int64(i), 36)
			cl.StackID = intent.StackIDPrefix + strings.Repeat("0", 5-len(id)) + id
			dir := intent.ClusterDirOf(&cl)
			ch, err := repo.Document(path.Join(dir, intent.ClusterFile), cl)
			if err != nil {
				return nil, err
			}
			changes = append(changes, ch)
			for _, ng := range model.NodeGroups {
				seq.NodeGroups++
				ng.ID, ng.UUID, ng.ClusterID, ng.ProjectID = seq.NodeGroups, uuid.NewString(), cl.UUID, cl.ProjectID
				if ch, err = repo.Document(intent.NodeGroupPath(dir, ng.Name), ng); err != nil {
					return nil, err
				}
				changes = append(changes, ch)
			}
		}
		ch, err := write.SequencesChange(seq)
		if err != nil {
			return nil, err
		}
		return &gitstore.Commit{Subject: fmt.Sprintf("benchmark: seed %d clusters", n),
			Author: gitstore.Signature{Name: "bench", Email: "bench@keel"}, Changes: append(changes, ch)}, nil
	})
	if err != nil {
		b.Fatal(err)
	}
	if err := a.db.Sync(context.Background(), a.store); err != nil {
		b.Fatal(err)
	}
}
