package main

import (
	"fmt"
	"net/http"
	"sort"
	"strings"
	"sync"
	"time"
)

// fleet is the clusters the bench made, and when each was answered and
// seen complete.
type fleet struct {
	a        *api
	projects int
	names    []string
	created  map[string]time.Time
	complete map[string]time.Time
	uuid     map[string]string
	failed   map[string]string
	upgraded map[string]bool
}

func project(i, projects int) string { return fmt.Sprintf("benchproject%02d", i%projects) }

// templates makes the two public templates every project uses: the one
// clusters are created from, and the one upgrades go to.
func (f *fleet) templates() error {
	for name, tag := range map[string]string{"fleet-k8s": "v1.33.4", "fleet-k8s-next": "v1.34.1"} {
		body := map[string]any{
			"name": name, "image_id": "ubuntu-2204-kube", "external_network_id": "public", "coe": "kubernetes",
			"flavor_id": "m1.medium", "master_flavor_id": "m1.large", "network_driver": "calico", "public": true,
			"labels": map[string]string{"kube_tag": tag},
		}
		if _, err := f.a.do(http.MethodPost, "/v1/clustertemplates", adminProject, "1.10", body, nil); err != nil {
			return err
		}
	}
	return nil
}

// create makes clusters up to n, concurrency at a time (1 control-plane
// machine, 1–3 workers, spread over the projects), and returns the
// creates' rate.
func (f *fleet) create(n, concurrency int) (float64, error) {
	from := len(f.names)
	for i := from; i < n; i++ {
		f.names = append(f.names, fmt.Sprintf("fleet-%04d", i))
	}
	var mu sync.Mutex
	var firstErr error
	work := make(chan int)
	var wg sync.WaitGroup
	start := time.Now()
	for range concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range work {
				err := f.createOne(i, &mu)
				mu.Lock()
				if err != nil && firstErr == nil {
					firstErr = err
				}
				mu.Unlock()
			}
		}()
	}
	for i := from; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
	return float64(n-from) / time.Since(start).Seconds(), firstErr
}

func (f *fleet) createOne(i int, mu *sync.Mutex) error {
	body := map[string]any{
		"name": f.names[i], "cluster_template_id": "fleet-k8s", "master_count": 1, "node_count": 1 + i%3,
		"create_timeout": 120,
	}
	var out struct {
		UUID string `json:"uuid"`
	}
	if _, err := f.a.do(http.MethodPost, "/v1/clusters", project(i, f.projects), "1.10", body, &out); err != nil {
		return err
	}
	mu.Lock()
	f.created[f.names[i]], f.uuid[f.names[i]] = time.Now(), out.UUID
	mu.Unlock()
	return nil
}

// waitComplete polls every project's cluster list until every cluster is
// CREATE_COMPLETE or failed, or the deadline passes.
// progressEvery is how often waitComplete reports how many are complete.
const progressEvery = 2 * time.Minute

func (f *fleet) waitComplete(deadline time.Duration) error {
	start := time.Now()
	end, report := start.Add(deadline), start.Add(progressEvery)
	for time.Now().Before(end) {
		if err := f.poll(); err != nil {
			return err
		}
		if len(f.complete)+len(f.failed) >= len(f.names) {
			return nil
		}
		if time.Now().After(report) {
			// A run stopped before the end still tells how fast
			// clusters were completing.
			fmt.Printf("- after %.0f s: %d of %d clusters CREATE_COMPLETE, %d failed\n", time.Since(start).Seconds(), len(f.complete), len(f.names), len(f.failed))
			report = report.Add(progressEvery)
		}
		time.Sleep(time.Second)
	}
	return fmt.Errorf("%d of %d clusters complete, %d failed after %s", len(f.complete), len(f.names), len(f.failed), deadline)
}

func (f *fleet) poll() error {
	for p := range f.projects {
		cs, err := f.a.list(project(p, f.projects))
		if err != nil {
			return err
		}
		now := time.Now()
		for _, c := range cs {
			switch {
			case c.Status == "CREATE_COMPLETE" && f.complete[c.Name].IsZero():
				f.complete[c.Name] = now
			case strings.HasSuffix(c.Status, "_FAILED"):
				f.failed[c.Name] = c.Status
			}
		}
	}
	return nil
}

// createToComplete is the distribution of create answered → seen
// CREATE_COMPLETE (resolution: the 1 s poll).
func (f *fleet) createToComplete() []float64 {
	var d []float64
	for n, t := range f.complete {
		d = append(d, t.Sub(f.created[n]).Seconds())
	}
	sort.Float64s(d)
	return d
}

func pct(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(len(sorted)-1, int(q*float64(len(sorted))))]
}
