package workload

import (
	"testing"
	"time"
)

// BenchmarkIdleClusterSync is what the simulated kubelets cost per idle
// cluster at each step: "every" is a full pass (what every Sync did before
// light clusters were skipped while their store is unchanged; still what a
// real API server's cluster gets), "quiet" the pass of a light cluster where
// nothing changed. Multiply by the fleet and divide by the step.
//
//	go test -run '^$' -bench IdleClusterSync -benchtime 200x ./simulator/workload
func BenchmarkIdleClusterSync(b *testing.B) {
	ctx := b.Context()
	c, _ := newCluster(b, "idle-bench")
	for i, cp := range []bool{true, false, false} {
		m := Machine{Name: "idle-bench-" + string(rune('a'+i)), ControlPlane: cp, IP: "10.0.2.1" + string(rune('0'+i)), KubeletVersion: "v1.33.4"}
		if err := c.Boot(ctx, m); err != nil {
			b.Fatal(err)
		}
	}
	for _, mode := range []struct {
		name  string
		reset bool
	}{{"every", true}, {"quiet", false}} {
		b.Run(mode.name, func(b *testing.B) {
			for b.Loop() {
				if mode.reset {
					c.mu.Lock()
					c.synced, c.rolledOut = syncMark{}, time.Time{}
					c.mu.Unlock()
				}
				if err := c.Sync(ctx); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
