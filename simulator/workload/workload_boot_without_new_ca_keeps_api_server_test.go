package workload

import (
	"testing"

	"github.com/openkeel/keel/internal/pki"
)

// Only a control-plane machine that brings CA material the API server was
// not started with restarts it, and only once: a worker's boot (its
// kubelet only trusts the CA), a control-plane machine with the same
// material (explicit or the cluster's keys), and a machine booted again
// (re-reconciled) keep the running API server.
func TestBootWithoutNewCAKeepsAPIServer(t *testing.T) {
	ctx := testContext(t)
	c, p := newCluster(t, "keep")
	r := newRotationCAs(t, p.CA)
	if err := c.Boot(ctx, controlPlaneMachine("keep", 0, pki.KeyPair{})); err != nil {
		t.Fatal(err)
	}
	worker := Machine{Name: "keep-worker-0", IP: "10.0.2.10", KubeletVersion: "v1.33.4", CA: r.trust}
	steps := []struct {
		name    string
		machine Machine
		restart bool
	}{
		{"a worker with other material", worker, false},
		{"a control-plane machine with the same material", controlPlaneMachine("keep", 1, p.CA), false},
		{"a control-plane machine with the cluster's keys", controlPlaneMachine("keep", 2, pki.KeyPair{}), false},
		{"a control-plane machine with new material", controlPlaneMachine("keep", 3, r.trust), true},
		{"the same machine booted again", controlPlaneMachine("keep", 3, r.trust), false},
		{"another control-plane machine with that material", controlPlaneMachine("keep", 4, r.trust), false},
		{"an older machine booted again with other material", controlPlaneMachine("keep", 1, r.finish), false},
	}
	for _, st := range steps {
		before := runningAPI(c)
		if err := c.Boot(ctx, st.machine); err != nil {
			t.Fatalf("%s: %v", st.name, err)
		}
		if restarted := runningAPI(c) != before; restarted != st.restart {
			t.Errorf("%s: API server restarted = %v, want %v", st.name, restarted, st.restart)
		}
	}
}
