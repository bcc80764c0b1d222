package clusterautoscaler

import "testing"

// BenchmarkManifests: the cost of one cluster's autoscaler objects (typed
// Go, no template engine).
func BenchmarkManifests(b *testing.B) {
	for b.Loop() {
		if _, err := Manifests(defaults); err != nil {
			b.Fatal(err)
		}
	}
}
