package observer

import (
	"testing"

	"github.com/openkeel/keel/status"
)

// A cluster's observation holds its own Machines only, not those of the
// other clusters in the namespace (the observer lists by an index of the
// cluster-name label).
func TestObservationHoldsOnlyItsClustersObjects(t *testing.T) {
	sink := startObserver(t)
	newCluster(t, "kube-own01", "uuid-own01")
	newCluster(t, "kube-own02", "uuid-own02")
	createMachine(t, "kube-own01", "kube-own01-m0")
	for _, m := range []string{"kube-own02-m0", "kube-own02-m1"} {
		createMachine(t, "kube-own02", m)
	}
	o := waitObservation(t, sink, "uuid-own02", "both Machines of kube-own02", func(o *status.Observation) bool {
		return len(o.HealthReason) == 3
	})
	for name := range o.HealthReason {
		if name != "api" && name != "kube-own02-m0.Ready" && name != "kube-own02-m1.Ready" {
			t.Errorf("kube-own02's observation holds %s", name)
		}
	}
	waitObservation(t, sink, "uuid-own01", "the Machine of kube-own01 alone", func(o *status.Observation) bool {
		_, mine := o.HealthReason["kube-own01-m0.Ready"]
		return mine && len(o.HealthReason) == 2
	})
}
