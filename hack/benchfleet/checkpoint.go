package main

import (
	"fmt"
	"math"
	"net/http"
	"path/filepath"
	"sort"
	"time"
)

// checkpoint grows the fleet to n clusters and measures it.
func checkpoint(c config, k *keel, f *fleet, n, round int) error {
	fmt.Printf("\n## %d clusters\n\n", n)
	if n > len(f.names) {
		from := len(f.names)
		t := time.Now()
		rate, err := f.create(n, c.parallel)
		if err != nil {
			return err
		}
		if err := f.waitComplete(c.limit); err != nil {
			return err
		}
		d := f.createToComplete()[from:]
		fmt.Printf("- created %d clusters at %.1f creates/s; all CREATE_COMPLETE %.0f s after the first create (%d failed)\n", n-from, rate, time.Since(t).Seconds(), len(f.failed))
		fmt.Printf("- create → CREATE_COMPLETE: p50 %.0f s, p90 %.0f s, p99 %.0f s, max %.0f s\n", pct(d, .5), pct(d, .9), pct(d, .99), pct(d, 1))
		time.Sleep(c.window) // the last clusters' addons and rollouts settle
	}
	printUsage("idle", measure(k.pids(), c.window, nil))
	if err := k.heapProfile(filepath.Dir(k.dataDir), n); err != nil {
		return err
	}
	if n == 0 {
		return nil
	}
	if err := apiCosts(f); err != nil {
		return err
	}
	if err := probe(c, k, f, round); err != nil {
		return err
	}
	if err := churn(c, k, f, n, round); err != nil {
		return err
	}
	before, after, err := repoSizes(k.dataDir)
	if err != nil {
		return err
	}
	fmt.Printf("- Git repository %.1f MB, %.1f MB after git gc; read model %.1f MB\n", mb(before), mb(after), mb(readModelBytes(k.dataDir)))
	return nil
}

func mb(n int64) float64 { return float64(n) / (1 << 20) }

func printUsage(label string, u map[string]usage) {
	fmt.Printf("\n| %s | processes | RSS (MB) | CPU (%% of a core) |\n|---|---|---|---|\n", label)
	for _, r := range roles {
		if x, ok := u[r]; ok {
			fmt.Printf("| %s | %d | %d | %.1f |\n", r, x.procs, x.rssMB, x.cpu)
		}
	}
	fmt.Println()
}

// apiCosts times the read calls clients make most, 30 times each, one at
// a time (the loopback client's view: handler, read model and encoding).
func apiCosts(f *fleet) error {
	name := f.names[len(f.names)/2]
	uuid, p := f.uuid[name], f.projectOf(name)
	calls := []struct{ label, path string }{
		{"list a project's clusters (limit 20)", "/v1/clusters?limit=20"},
		{"list a project's clusters (all)", "/v1/clusters"},
		{"show a cluster", "/v1/clusters/" + uuid},
		{"list a cluster's nodegroups", "/v1/clusters/" + uuid + "/nodegroups"},
		{"show a template", "/v1/clustertemplates/fleet-k8s"},
	}
	fmt.Printf("| call | p50 | p99 |\n|---|---|---|\n")
	for _, cl := range calls {
		var d []float64
		for range 30 {
			took, err := f.a.do(http.MethodGet, cl.path, p, "1.10", nil, nil)
			if err != nil {
				return err
			}
			d = append(d, took.Seconds())
		}
		sort.Float64s(d)
		fmt.Printf("| %s | %s | %s |\n", cl.label, ms(pct(d, .5)), ms(pct(d, .99)))
	}
	fmt.Println()
	return nil
}

// probe makes c.probes changes at once and reports their delays: to the
// applied object (the reconciler's histogram) and to the settled status.
func probe(c config, k *keel, f *fleet, round int) error {
	before, err := scrape(k.url())
	if err != nil {
		return err
	}
	settled, err := f.apply(f.changes(c.probes, round*7+1), 30*time.Minute)
	if err != nil {
		return err
	}
	after, err := scrape(k.url())
	if err != nil {
		return err
	}
	h := histogramDelta(before, after, "keel_change_applied_seconds")
	fmt.Printf("- %d changes at once (resizes and upgrades): change → applied p50 %s, p99 %s, within 1 / 2 / 3 s: %s; change → settled status p50 %.1f s, p99 %.1f s\n",
		c.probes, ms(quantile(.5, h)), ms(quantile(.99, h)), within(h, 1, 2, 3), pct(settled, .5), pct(settled, .99))
	return nil
}

// churn resizes and upgrades c.churn of the fleet while memory and CPU
// are sampled, then waits for the changes to settle.
func churn(c config, k *keel, f *fleet, n, round int) error {
	cs := f.changes(int(math.Ceil(c.churn*float64(n))), round*7+3)
	var settled []float64
	var err error
	done := make(chan struct{})
	u := measure(k.pids(), c.window, func() {
		defer close(done)
		settled, err = f.apply(cs, 60*time.Minute)
	})
	printUsage(fmt.Sprintf("churn: %d resizes and upgrades", len(cs)), u)
	<-done
	if err != nil {
		return err
	}
	fmt.Printf("- churn of %d changes settled: p50 %.1f s, p99 %.1f s\n", len(cs), pct(settled, .5), pct(settled, .99))
	return nil
}

func reportRestart(k *keel, a *api, clusters int) error {
	r, err := restart(k, a, clusters)
	if err != nil {
		return err
	}
	fmt.Printf("\n## warm restart with %d clusters\n\n- SIGTERM → stopped %.1f s; start → API answers %.1f s; start → every cluster verified by the reconciler %.1f s\n- Cluster API objects whose generation changed across the restart: %d of %d\n",
		clusters, r.stop.Seconds(), r.answers.Seconds(), r.verified.Seconds(), r.changed, r.objects)
	return nil
}
