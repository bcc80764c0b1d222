package clusterapi_test

import (
	"context"
	"net/http"
	"strings"
	"sync"
	"testing"
	"time"

	"k8s.io/client-go/rest"

	"github.com/openkeel/keel/mgmtcluster/clusterapi"
)

// The three providers read Clusters, Machines and KubeadmConfigs through one
// cache: each kind is watched once, not once per provider as clusterctl's
// three Deployments would, so a fleet's objects are decoded and held once.
func TestProvidersShareOneWatchPerKind(t *testing.T) {
	watches := &watchCounter{opened: map[string]int{}}
	cfg := rest.CopyConfig(env.Config)
	cfg.WrapTransport = watches.wrap
	ctx, cancel := context.WithCancel(context.Background())
	c, err := clusterapi.Start(ctx, cfg, clusterapi.Options{})
	if err != nil {
		cancel()
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cancel()
		_ = c.Wait()
	})
	// The controllers open their watches as they start, after Start has
	// returned: wait for each kind's first.
	kinds := []string{"clusters", "machines", "kubeadmconfigs", "kubeadmcontrolplanes"}
	deadline := time.Now().Add(30 * time.Second)
	for !watches.all(kinds) && time.Now().Before(deadline) {
		time.Sleep(50 * time.Millisecond)
	}
	for _, resource := range kinds {
		if n := watches.count(resource); n != 1 {
			t.Errorf("%s watched %d times, want once", resource, n)
		}
	}
}

// watchCounter counts the watches Cluster API's clients open, by resource.
type watchCounter struct {
	mu     sync.Mutex
	opened map[string]int
}

func (w *watchCounter) wrap(rt http.RoundTripper) http.RoundTripper {
	return roundTripFunc(func(r *http.Request) (*http.Response, error) {
		if r.URL.Query().Get("watch") == "true" {
			parts := strings.Split(strings.Trim(r.URL.Path, "/"), "/")
			w.mu.Lock()
			w.opened[parts[len(parts)-1]]++
			w.mu.Unlock()
		}
		return rt.RoundTrip(r)
	})
}

func (w *watchCounter) count(resource string) int {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.opened[resource]
}

func (w *watchCounter) all(resources []string) bool {
	for _, r := range resources {
		if w.count(r) == 0 {
			return false
		}
	}
	return true
}

type roundTripFunc func(*http.Request) (*http.Response, error)

func (f roundTripFunc) RoundTrip(r *http.Request) (*http.Response, error) { return f(r) }
