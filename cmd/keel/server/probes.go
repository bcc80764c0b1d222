package server

import (
	"context"
	"encoding/json"
	"net/http"
	"sync"
	"time"

	"k8s.io/client-go/kubernetes"
)

// ProbeTimeout bounds each dependency check of /readyz, so that a hung
// dependency makes the probe fail rather than hang (kubelet's probe timeout
// must be above it: deploy/base sets 5s).
const ProbeTimeout = 2 * time.Second

// readinessCheck is one dependency /readyz asks.
type readinessCheck struct {
	name  string
	check func(context.Context) error
}

// readinessChecks are the dependencies without which a replica cannot
// serve: Git (writes, and the remote's truth), the read model (every GET)
// and the management cluster (status, reconciling).
func (in *Instance) readinessChecks(cs kubernetes.Interface) []readinessCheck {
	return []readinessCheck{
		{"git", in.Store.Ping},
		{"database", in.DB.Ping},
		{"management-cluster", func(ctx context.Context) error {
			// The apiserver's own /readyz: readable by anyone
			// (system:public-info-viewer), so it needs no extra RBAC.
			return cs.Discovery().RESTClient().Get().AbsPath("/readyz").Do(ctx).Error()
		}},
	}
}

// healthz answers as long as the process serves HTTP: liveness must not
// depend on anything else, or an outage of a dependency would make the
// kubelet restart every replica.
func healthz() http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, _ *http.Request) {
		w.Header().Set("Content-Type", "text/plain; charset=utf-8")
		_, _ = w.Write([]byte("ok\n"))
	})
}

// readyz runs every check concurrently, each within ProbeTimeout, and
// answers 200 when all pass, else 503; the body names each check with "ok"
// or its error.
func readyz(checks []readinessCheck) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		results := make(map[string]string, len(checks))
		var mu sync.Mutex
		var wg sync.WaitGroup
		ready := true
		for _, c := range checks {
			wg.Add(1)
			go func() {
				defer wg.Done()
				ctx, cancel := context.WithTimeout(r.Context(), ProbeTimeout)
				defer cancel()
				res := "ok"
				if err := c.check(ctx); err != nil {
					res = err.Error()
				}
				mu.Lock()
				defer mu.Unlock()
				results[c.name] = res
				ready = ready && res == "ok"
			}()
		}
		wg.Wait()
		body := struct {
			Status string            `json:"status"`
			Checks map[string]string `json:"checks"`
		}{"ready", results}
		code := http.StatusOK
		if !ready {
			body.Status, code = "not ready", http.StatusServiceUnavailable
		}
		w.Header().Set("Content-Type", "application/json")
		w.Header().Set("Cache-Control", "no-store")
		w.WriteHeader(code)
		_ = json.NewEncoder(w).Encode(body)
	})
}
