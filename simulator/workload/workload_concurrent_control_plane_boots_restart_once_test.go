package workload

import (
	"sync"
	"testing"
)

// Control-plane machines that boot at the same time with the same new CA
// material (Cluster API scaling several up in a rollout) restart the API
// server once: the restart happens under the cluster's lock, and the
// machines after the first find it running with their material.
func TestConcurrentControlPlaneBootsRestartOnce(t *testing.T) {
	ctx := testContext(t)
	c, p := newCluster(t, "once")
	r := newRotationCAs(t, p.CA)
	if err := c.Boot(ctx, controlPlaneMachine("once", 0, p.CA)); err != nil {
		t.Fatal(err)
	}
	var wg sync.WaitGroup
	errs := make([]error, 3)
	for i := range errs {
		wg.Go(func() { errs[i] = c.Boot(ctx, controlPlaneMachine("once", i+1, r.trust)) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Errorf("machine %d: %v", i+1, err)
		}
	}
	c.mu.Lock()
	restarts, ca := c.restarts, c.ca
	c.mu.Unlock()
	if restarts != 1 || !ca.Equal(r.trust) {
		t.Errorf("restarts = %d, running with the trust material = %v; want 1, true", restarts, ca.Equal(r.trust))
	}
}
