// Command benchfleet measures keel with a fleet of clusters on one
// machine (issue 30, docs/performance.md): it starts `keel serve` on the
// embedded management cluster (Cluster API's own controllers, simulated
// OpenStack and workload clusters), creates clusters through the Magnum API
// at the highest rate it answers, and at each checkpoint prints the time to
// CREATE_COMPLETE, memory and CPU per part idle and under churn (resizes
// and upgrades across a share of the fleet), the cost of the API's calls,
// the delay from a change to the applied object and to the settled status,
// and the repository's and the read model's sizes; then a warm restart.
// A measurement, not a test: it asserts nothing (`make bench-fleet`).
package main

import (
	"flag"
	"fmt"
	"math"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"time"

	"github.com/go-logr/logr"
	ctrllog "sigs.k8s.io/controller-runtime/pkg/log"
)

type config struct {
	checkpoints         []int
	projects, parallel  int
	probes              int
	churn               float64
	window, step, limit time.Duration
	apiServers, keelBin string
	workers             int
	keep, split         bool
}

func main() {
	// Its clients' own logs would only be controller-runtime's complaint
	// that no logger was set.
	ctrllog.SetLogger(logr.Discard())
	c, err := parseFlags()
	if err == nil {
		err = run(c)
	}
	if err != nil {
		fmt.Fprintln(os.Stderr, "benchfleet:", err)
		os.Exit(1)
	}
}

func parseFlags() (config, error) {
	var c config
	points := flag.String("checkpoints", "0,10,100,500,1000", "fleet sizes to measure at, ascending")
	flag.IntVar(&c.projects, "projects", 10, "projects the clusters are spread over")
	flag.IntVar(&c.parallel, "parallel", 4, "creates in flight at once")
	flag.IntVar(&c.probes, "probes", 10, "changes whose delay is measured at each checkpoint")
	flag.Float64Var(&c.churn, "churn", 0.05, "share of the fleet resized or upgraded while the churn is sampled")
	flag.DurationVar(&c.window, "window", 30*time.Second, "how long memory and CPU are sampled")
	flag.DurationVar(&c.step, "simulate-step", 2*time.Second, "keel serve --simulate-step")
	flag.DurationVar(&c.limit, "complete-within", 2*time.Hour, "how long a checkpoint's creates may take to complete")
	flag.StringVar(&c.apiServers, "workload-apiservers", "light", "keel serve --workload-apiservers")
	flag.IntVar(&c.workers, "workers", 4, "keel serve --reconcile-workers")
	flag.StringVar(&c.keelBin, "keel", "", "a keel binary (default: built from this checkout)")
	flag.BoolVar(&c.keep, "keep", false, "keep the data folder (printed) instead of removing it")
	flag.BoolVar(&c.split, "split", false, "run the management cluster, Cluster API and the simulators in `keel management` and keel in `keel serve --kubeconfig`, two processes as in a real deployment, so that keel's own memory and CPU are read apart")
	flag.Parse()
	for _, p := range strings.Split(*points, ",") {
		n, err := strconv.Atoi(strings.TrimSpace(p))
		if err != nil || n < 0 || (len(c.checkpoints) > 0 && n < c.checkpoints[len(c.checkpoints)-1]) {
			return c, fmt.Errorf("-checkpoints %q: ascending numbers of clusters are allowed", *points)
		}
		c.checkpoints = append(c.checkpoints, n)
	}
	return c, nil
}

func run(c config) error {
	dir, err := os.MkdirTemp("", "benchfleet-")
	if err != nil {
		return err
	}
	if c.keep {
		fmt.Println("data folder:", dir)
	} else {
		defer os.RemoveAll(dir)
	}
	k, err := startKeel(c, dir)
	if k != nil && k.mgmt != nil {
		defer func() { _ = k.mgmt.stop() }() // after keel's own stop below
	}
	if err != nil {
		return err
	}
	defer func() { _ = k.stop() }()
	a := &api{url: k.url(), hc: &http.Client{Timeout: time.Minute}}
	f := &fleet{a: a, projects: c.projects, created: map[string]time.Time{}, complete: map[string]time.Time{},
		uuid: map[string]string{}, failed: map[string]string{}, upgraded: map[string]bool{}}
	if err := f.templates(); err != nil {
		return err
	}
	fmt.Printf("keel %s, workload API servers %s, simulate step %s, %d projects, %d reconcile workers, Cluster API in keel's process: %t\n", k.bin, c.apiServers, c.step, c.projects, c.workers, !c.split)
	for i, n := range c.checkpoints {
		if err := checkpoint(c, k, f, n, i); err != nil {
			return err
		}
	}
	return reportRestart(k, a, len(f.names))
}

func startKeel(c config, dir string) (*keel, error) {
	bin := c.keelBin
	if bin == "" {
		bin = filepath.Join(dir, "keel")
		if out, err := exec.Command("go", "build", "-o", bin, "./cmd/keel").CombinedOutput(); err != nil {
			return nil, fmt.Errorf("building keel: %v: %s", err, out)
		}
	}
	listen, err := freeAddr()
	if err != nil {
		return nil, err
	}
	profiler, err := freeAddr()
	if err != nil {
		return nil, err
	}
	k := &keel{bin: bin, dataDir: filepath.Join(dir, "data"), listen: listen, apiServers: c.apiServers, step: c.step, profiler: profiler, workers: c.workers}
	if c.split {
		if k.mgmt, err = startManagement(c, bin, dir); err != nil {
			return k, err
		}
	}
	if err := k.start(); err != nil {
		return k, err
	}
	_, err = k.waitAnswers(&api{url: k.url(), hc: http.DefaultClient}, 20*time.Minute)
	return k, err
}

func startManagement(c config, bin, dir string) (*management, error) {
	profiler, err := freeAddr()
	if err != nil {
		return nil, err
	}
	m := &management{bin: bin, dataDir: filepath.Join(dir, "management"), apiServers: c.apiServers, step: c.step, profiler: profiler}
	return m, m.start(20 * time.Minute)
}

func ms(d float64) string {
	if math.IsNaN(d) {
		return "–"
	}
	return fmt.Sprintf("%.0f ms", d*1000)
}
