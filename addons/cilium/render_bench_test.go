package cilium

import "testing"

// BenchmarkManifests is the cost of rendering Cilium's chart for one
// cluster (each compile of a Cilium cluster pays it).
func BenchmarkManifests(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := Manifests(Params{Tag: "v1.15.3", IPv4Pool: "10.100.0.0/16"}); err != nil {
			b.Fatal(err)
		}
	}
}
